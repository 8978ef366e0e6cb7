#!/bin/sh
# Regenerates docs/case-studies.md: its introduction, then every case study
# at full size with its pictures (examples/case-studies/NAME.sh --doc).
set -eu
cd "$(dirname "$0")/../.."
cat > docs/case-studies.md <<'MD'
# Case studies

Three situations an HPC developer meets, each reproduced end to end by one
script in `examples/case-studies/` and regenerated with
`examples/case-studies/all.sh` (the numbers below are what the tool printed
then).  The traces come from `hopscope gen`, so every figure is
deterministic; `make check` runs each script at a reduced size and checks
the diagnosis it documents (`tests/integration/case_studies.sh`).  The
pictures are the SVGs `hopscope render` wrote (dark links are congested,
thick links carry the application's own traffic; docs/viz.md).  A fourth
(section 4) starts from real MPI code run at 1024 ranks under SimGrid's
SMPI, with `examples/smpi/halo3d-smpi.sh`.  A fifth (section 5) asks which
network component the run time depends on, over hundreds of mappings
(`hopscope sweep`, `hopscope culprits`; `examples/culprits/case_study.sh`).
MD
for cs in halo pf3d incast; do
    sh "examples/case-studies/$cs.sh" --doc
done
# The SMPI study (section 4) is not deterministic (SMPI measures the
# computation): its text, with the figures of one run of
# examples/smpi/halo3d-smpi.sh, is kept in examples/smpi/case-study.md.
cat examples/smpi/case-study.md >> docs/case-studies.md
# The culprits study (section 5) takes about half an hour: its text, with
# the figures of one run of examples/culprits/case_study.sh, is kept in
# examples/culprits/case-study.md.
cat examples/culprits/case-study.md >> docs/case-studies.md
echo "docs/case-studies.md regenerated"
