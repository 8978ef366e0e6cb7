#!/bin/sh
# Reproduces the analyzer figures of docs/validation.md (markdown on stdout).
#   examples/analyzer/validate.sh [BUILD]        (a few minutes on 2 cores)
# Deterministic: the same build prints the same tables.
set -eu
BUILD=${1:-build}
H=$BUILD/bin/hopscope
T=$(mktemp -d "${TMPDIR:-/tmp}/hs-an-validate.XXXXXX")
trap 'rm -rf "$T"' EXIT

# the value after "KEY " on the analyzer's summary lines
findings() { sed -n 's/^ *\([0-9]\)\. \[\([a-z]*\)\].*/\2/p' "$1" | tr '\n' ' ' | sed 's/ $//'; }

echo "### Where the congested-fraction threshold sits: uniform traffic, no congestion tree"
echo
echo "Uniform random traffic (4 KiB messages, Poisson) on a full-bisection 256-node fat-tree,"
echo "200 us measured: link waits come from ordinary queueing only.  For each offered load:"
echo "links with data, those whose true CF (ground truth, every packet) reaches 0.25,"
echo "the largest true CF, the links the analyzer calls congested (CF - 2 SE >= 0.25), and the"
echo "findings."
echo
echo "| offered load | links with data | true CF >= 0.25 | largest true CF | called congested | findings |"
echo "|---|---|---|---|---|---|"
for load in 0.3 0.4 0.45 0.5 0.6 0.8; do
    "$H" simulate --topo fattree:k=16,n=2 --load $load --duration 200us -o "$T/u" --quiet
    "$H" analyze "$T/u" --accuracy > "$T/u.txt"
    truth=$(sed -n 's/^truth: \([0-9]*\) links.*; \([0-9]*\) of them.*largest true CF \([0-9.]*\).*/\1 \2 \3/p' "$T/u.txt")
    called=$(sed -n 's/^links .* judged by their own estimate, \([0-9]*\) congested.*/\1/p' "$T/u.txt")
    set -- $truth
    echo "| $load | $1 | $2 | $3 | $called | $(findings "$T/u.txt") |"
    rm -rf "$T/u"
done
echo
echo 'Command (per load L): `hopscope simulate --topo fattree:k=16,n=2 --load L --duration 200us -o RUN && hopscope analyze RUN --accuracy`'
echo

echo "### Accuracy: 256-node fat-tree, 3D halo exchange, default 6-bit field"
echo
echo "The 256-node fat-tree is tapered 2:1 so that the halo is congested: on the"
echo "full-bisection tree a halo of x-fastest ranks is not (every leaf's z-flows get"
echo "an up-link each under D-mod-K, every node link receives its six faces at one"
echo "sixth of its rate each), and a congested fraction of 0 everywhere would test"
echo "nothing."
echo
G="gen halo3d --ranks 256 --iters 200 --size 64K"
S="simulate --topo fattree:k=16,n=2,taper=2 --records-cap 8000000"
"$H" $G -o "$T/halo.trace" --quiet
"$H" $S -i "$T/halo.trace" -o "$T/halo" --quiet
"$H" analyze "$T/halo" --accuracy > "$T/halo.txt"
echo "\`hopscope $G -o TRACE && hopscope $S -i TRACE -o RUN && hopscope analyze RUN --accuracy\`"
echo
sed -n '/^truth:/,$p' "$T/halo.txt"
echo
echo "Findings: $(findings "$T/halo.txt")."
rm -rf "$T/halo" "$T/halo.trace"
echo

echo "### Diagnoses of replayed applications"
echo
echo "| application | machine, mapping, background | findings | what if |"
echo "|---|---|---|---|"
# mapping: all-to-all in groups of 16, groups scattered over the leaves
"$H" gen pf3d --ranks 256 --group 16 --iters 10 -o "$T/pf.trace" --quiet
awk 'BEGIN { for (r = 0; r < 256; r++) print r, (r % 16) * 16 + int(r / 16) }' > "$T/scatter.map"
"$H" simulate --topo fattree:k=16,n=2,taper=4 -i "$T/pf.trace" --map "file:$T/scatter.map" -o "$T/pf" --quiet
"$H" analyze "$T/pf" > "$T/pf.txt"
"$H" whatif "$T/pf" --map suggested -q > "$T/pf.w"
w=$(awk '/^suggested mapping/ { print "suggested mapping: " $3 " " $4 " (" $5 "), congested links " $10 " " $11 }' "$T/pf.w")
echo "| pf3d 256 ranks, all-to-all in groups of 16 | fattree:k=16,n=2,taper=4, groups scattered over the leaves | $(findings "$T/pf.txt") | $w |"
# pattern: every rank sends to rank 0
"$H" gen incast --ranks 64 --iters 20 --size 64K -o "$T/in.trace" --quiet
"$H" simulate --topo fattree:k=8,n=2 -i "$T/in.trace" -o "$T/in" --quiet
"$H" analyze "$T/in" > "$T/in.txt"
echo "| incast 64 ranks into rank 0 | fattree:k=8,n=2, linear | $(findings "$T/in.txt") | - |"
# interference: light canary next to GPCNeT congestors
"$H" gen canary --ranks 64 --iters 200 --size 4K -o "$T/can.trace" --quiet
for bg in alltoall:size=64K incast:size=64K; do
    "$H" simulate --topo fattree:k=16,n=2,taper=4 -i "$T/can.trace" --map random --background $bg -o "$T/can" --quiet
    "$H" analyze "$T/can" > "$T/can.txt"
    "$H" whatif "$T/can" --no-background -q > "$T/can.w"
    w=$(awk '/^current mapping, no background/ { print "no background: " $5 " " $6 " (" $7 "), congested links " $12 " " $13 ", " $NF }' "$T/can.w")
    echo "| canary 64 ranks (GPCNeT) | fattree:k=16,n=2,taper=4, random, background $bg | $(findings "$T/can.txt") | $w |"
    rm -rf "$T/can" "$T/can.whatif"
done
# none: the light canary alone
"$H" simulate --topo fattree:k=16,n=2,taper=4 -i "$T/can.trace" --map random -o "$T/can" --quiet
"$H" analyze "$T/can" > "$T/can.txt"
echo "| canary 64 ranks (GPCNeT) | fattree:k=16,n=2,taper=4, random, alone | $(findings "$T/can.txt") | - |"
echo
echo "Commands: \`hopscope gen PATTERN ... -o TRACE\`, \`hopscope simulate --topo SPEC -i TRACE [--map M] [--background B] -o RUN\`, \`hopscope analyze RUN\`, \`hopscope whatif RUN --map suggested | --no-background\`; the exact arguments are in examples/analyzer/validate.sh."
