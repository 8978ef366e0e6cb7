#!/bin/sh
# Case study 3: an incast.  Every rank sends to one rank at once; the
# congestion tree's root is the link into that rank's node, and the
# diagnosis is a communication-pattern problem.
#   examples/case-studies/incast.sh [--small] [--out DIR] [--doc]
. "$(dirname "$0")/common.sh"

R=64 ROOT=5 TOPO=fattree:k=8,n=2 ITERS=20
[ "$CS_SMALL" -eq 1 ] && R=32 ITERS=10

md "## 3. Incast"
md ""
md "Every one of $R ranks (one per node) sends $ITERS messages of 16 KiB to rank"
md "$ROOT, which has posted all its receives (\`hopscope gen incast\`), on a"
md "full-bisection fat-tree (\`$TOPO\`): nothing in the machine is short of"
md "bandwidth but the one link into rank $ROOT's node."
md ""
run gen incast --ranks "$R" --iters "$ITERS" --size 16K --root "$ROOT" -o incast.trace --quiet
cmdline
run simulate --topo "$TOPO" -i incast.trace -o incast
cmdline
block "$CS_OUT/last.txt" '/^predicted/p;/^latency/p'
run analyze incast
cp "$CS_OUT/last.txt" "$CS_OUT/analyze.txt"
cmdline
block "$CS_OUT/analyze.txt" '/^Findings/,/^Phases/p'
run render incast
picture incast network.svg "The incast's congestion tree"
md "The root is the ejection link into node n$ROOT: it carries the"
md "application's own traffic at its capacity, and the links upstream of it"
md "(the spine's down-link into n$ROOT's leaf switch) are congested only"
md "because it is: they are its tree, not roots of their own.  The finding"
md "names the node, its rank and the senders, and says what to do."
md ""

tr '\n' ' ' < "$CS_OUT/analyze.txt" | tr -s ' ' > "$CS_OUT/analyze.one"
grep -qE "Findings [^:]*: 1\\. \\[pattern\\] Incast into node n$ROOT \\(rank $ROOT\\)" "$CS_OUT/analyze.one"
check "the first finding is a pattern problem: an incast into rank $ROOT's node" $?
grep -qE "link [0-9]+ l1s[0-9]+->n$ROOT \\(ejection\\) .* yes" "$CS_OUT/analyze.txt"
check "the root is the ejection link into that node" $?
n=$(grep -cE ' yes *$' "$CS_OUT/analyze.txt")
[ "$n" -eq 1 ]; check "one root ($n)" $?
finish
