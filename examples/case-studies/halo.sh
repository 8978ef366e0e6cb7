#!/bin/sh
# Case study 1: a miniGhost-like 3D halo exchange with locality only in x.
# Per-direction phases: the x phases stay on the nodes, the y phases meet
# congestion on links into nodes, the z phases on the second-level links.
#   examples/case-studies/halo.sh [--small] [--out DIR] [--doc]
. "$(dirname "$0")/common.sh"

if [ "$CS_SMALL" -eq 1 ]; then
    R=64 DIMS=4x4x4 PPN=4 TOPO=fattree:k=4,n=2,taper=2 ITERS=10
else
    R=512 DIMS=8x8x8 PPN=8 TOPO=fattree:k=8,n=2,taper=2 ITERS=20
fi
X=${DIMS%%x*}
Y=${DIMS#*x}; Y=${Y%%x*}
printf '# halo3d (hopscope gen): one tag per direction\ntag 100 -x\ntag 101 +x\ntag 102 -y\ntag 103 +y\ntag 104 -z\ntag 105 +z\n' > "$CS_OUT/phases.txt"

md "## 1. Halo exchange with locality only in x"
md ""
md "A miniGhost-like 3D halo exchange ($R ranks on a $DIMS grid, one MPI tag per"
md "direction, 64 KiB faces) runs with $PPN ranks per node, so that a node"
md "holds one whole x row (x varies fastest, as miniGhost decomposes): every x"
md "neighbour is on the same node, y neighbours are on the neighbouring nodes"
md "under the same leaf switch, and z neighbours are $((X * Y / PPN)) nodes away, under"
md "another leaf switch.  The machine is a two-level fat-tree tapered 2:1"
md "(\`$TOPO\`).  Locality only in x: the mapping keeps x on the node and"
md "nothing else."
md ""
run gen halo3d --ranks "$R" --dims "$DIMS" --ppn "$PPN" --iters "$ITERS" --size 64K -o halo.trace --quiet
cmdline
run simulate --topo "$TOPO" -i halo.trace -o halo
cmdline
block "$CS_OUT/last.txt" '/^predicted/p;/^latency/p'
run analyze halo --phases phases.txt
cp "$CS_OUT/last.txt" "$CS_OUT/analyze.txt"
cmdline
md "The per-phase view (the analyzer names the phases from \`phases.txt\`;"
md "\`where\` counts the congested links of each phase by kind: \`ej\` links into"
md "nodes, \`up1-2\`/\`down2-1\` the links between leaf and second-level switches):"
md ""
block "$CS_OUT/last.txt" '/^Phases:/,/^$/p'
run render halo
picture halo phases.svg "Congestion per phase"
md "- **±x**: no packet of these phases enters the network (every x neighbour"
md "  shares the node), so they have no row: no congestion at all."
md "- **±y**: congested only on links into nodes (ejection): a node receives its"
md "  y faces from two neighbouring nodes while its z faces arrive too.  The"
md "  links out of the nodes are not congested in the model: a NIC cuts a"
md "  packet only when its link can take it, and waiting in the NIC's queue is"
md "  not waiting at the link."
md "- **±z**: congested on the second-level links (leaf to spine and back) as"
md "  well as on the links into nodes: the z faces cross the tapered spines."
md ""

ph="$CS_OUT/analyze.txt"
! grep -qE '^  [+-]x ' "$ph"; check "x phases never enter the network" $?
for d in -y +y; do
    grep -qE "^  \\$d .* ej [0-9]+\$" "$ph"; check "$d phase congested only on links into nodes" $?
done
for d in -z +z; do
    grep -qE "^  \\$d .*(up1-2|down2-1) [0-9]+" "$ph"; check "$d phase congested on second-level links" $?
done
finish
