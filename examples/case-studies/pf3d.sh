#!/bin/sh
# Case study 2: a pF3D-like application (all-to-all in groups of 4 plus a
# 3D halo) under heavy background slows down; the analysis says
# interference on dark, thin links between leaf and second-level switches;
# a shifted mapping recovers part of the loss.
#   examples/case-studies/pf3d.sh [--small] [--out DIR] [--doc]
. "$(dirname "$0")/common.sh"

R=120 PPN=1 TOPO=fattree:k=16,n=2,taper=2 BG=mixed:frac=0.9 SHIFT=4
ITERS=40
[ "$CS_SMALL" -eq 1 ] && ITERS=30

md "## 2. pF3D-like application under heavy background"
md ""
md "A pF3D-like job ($R ranks, one per node: an all-to-all within groups of 4"
md "plus a 3D halo, $ITERS iterations) gets the first $R of the 256 nodes of a"
md "fat-tree tapered 2:1 (\`$TOPO\`, 16 nodes per leaf switch).  $R nodes are"
md "7.5 leaves, so the job shares leaf switch 7 with other jobs: GPCNeT's four"
md "congestors (all-to-all, incast, RMA incast, RMA broadcast) on 90% of the"
md "free nodes (\`--background $BG\`)."
md ""
run gen pf3d --ranks "$R" --ppn "$PPN" --iters "$ITERS" -o pf3d.trace --quiet
cmdline
run simulate --topo "$TOPO" -i pf3d.trace --background "$BG" -o congested
cmdline
block "$CS_OUT/last.txt" '/^background/p;/^predicted/p;/^latency/p'
run analyze congested
cp "$CS_OUT/last.txt" "$CS_OUT/analyze.txt"
cmdline
block "$CS_OUT/analyze.txt" '/^Findings/,/^Congested links/p'
run render congested
picture congested network.svg "The congested run"
md "The job has a problem of its own on this tapered tree (the mapping"
md "finding: its halo and all-to-all cross the 2:1 spines, and it has it"
md "alone too, below), and the background adds the interference finding:"
md "links between leaf and second-level switches that are dark (congested"
md "for most of the job's packets) and thin (little of the job's own traffic"
md "over the run), and congested even for the job's packets that met few of"
md "its own there."
md ""
md "What a shifted placement gives (\`hopscope whatif\`: the same trace and"
md "machine, the job moved by $SHIFT nodes, and both without the background):"
md ""
run whatif congested --map "shift:$SHIFT" --no-background -q
cp "$CS_OUT/last.txt" "$CS_OUT/whatif.txt"
cmdline
block "$CS_OUT/whatif.txt" '/^scenario/,/^$/p'
md "Other shifts, with the background (predicted time):"
md ""
md "| mapping | predicted | change |"
md "|---|---|---|"
for s in 8 12 16; do
    run whatif congested --map "shift:$s" -q -o "congested.shift$s"
    sed -n "s/^shift:$s  *\\([0-9.]* us\\)  *\\([-+0-9.]*%\\).*/| shift:$s | \\1 | \\2 |/p" "$CS_OUT/last.txt" >> "$CS_MD"
done
md ""
md "Moving the job by $SHIFT nodes recovers most of the loss; other shifts make"
md "it worse.  In a two-level fat-tree, traffic between disjoint sets of leaves"
md "never shares a link, so what matters is which leaf switches, and which of"
md "the congestors' nodes under them, the job shares."
md ""

# ---- checks -------------------------------------------------------------------
t() { sed -n "s/^$1  *\\([0-9.]*\\) us.*/\\1/p" "$CS_OUT/whatif.txt" | head -1; }
cur=$(t "current mapping") sh_=$(t "shift:$SHIFT") nobg=$(t "current mapping, no background")
echo "times: default+background $cur us, shift:$SHIFT+background $sh_ us, no background $nobg us"
awk "BEGIN { exit !($cur > $nobg * 1.1) }"; check "the background slows the job down" $?
awk "BEGIN { exit !($sh_ < $cur && $sh_ > $nobg) }"; check "shift:$SHIFT recovers part of the loss" $?
tr '\n' ' ' < "$CS_OUT/analyze.txt" | tr -s ' ' > "$CS_OUT/analyze.one"
grep -qE '\[interference\] [0-9]+ (congested links? carr[a-z]+ little of the application.s own traffic \(dark and thin; |links? (is|are) congested even where the application itself is quiet on them \()worst: link [0-9]+ (l1s[0-9]+->l2s[0-9]+ \(up\)|l2s[0-9]+->l1s[0-9]+ \(down\))' "$CS_OUT/analyze.one"
check "interference on dark, thin links between leaf and second-level switches" $?
finish
