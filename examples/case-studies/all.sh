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
thick links carry the application's own traffic; docs/viz.md).
MD
for cs in halo pf3d incast; do
    sh "examples/case-studies/$cs.sh" --doc
done
echo "docs/case-studies.md regenerated"
