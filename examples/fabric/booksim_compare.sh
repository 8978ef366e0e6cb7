#!/bin/sh
# Uniform-random saturation throughput of both router modes on the six
# configurations of the BookSim2 comparison (issue 19 §3), next to the
# figures BookSim2 gave for the same networks.  Prints a markdown table.
#   examples/fabric/booksim_compare.sh [-b BUILD] [ROW...]
# ROW: torus dragonfly fattree1 fattree4 torus4 dragonfly4 dragonfly_speedup
# (default: all)
#
# Units: one flit = 64 bytes = one cycle of a 25 GB/s link (2.56 ns), and
# every link (node links too) has a latency of one cycle.  Packets are 1
# flit (64 B) or 4 flits (256 B).  Router parameters per row are those of
# BookSim2's example configuration for the topology (src/examples):
#   torus88 (BookSim2's defaults): 8-flit VC buffers, routing, VC and
#     switch allocation one cycle each, no credit delay;
#   fattree_config: 16-flit buffers, lookahead routing (routing_delay=0),
#     credit_delay=2, hold_switch_for_packet=1, nca routing;
#   dragonflyconfig: 256-flit buffers, routing_delay=0, credit_delay=2,
#     hold_switch_for_packet=1, but internal_speedup 1 (the file has 2.0;
#     the row "dragonfly, internal_speedup=2.0" shows that variant).
# Allocators are separable input-first (fattree_config, dragonflyconfig;
# torus88 leaves BookSim2's default, iSLIP, which is not modelled).  The
# default router gets the same buffers in bytes (--buffer = flits x 64)
# and a routing delay of one cycle.
#
# Saturation throughput: the largest offered load that the network still
# accepts (accepted >= 0.97 x offered over a 20 us window after 5 us of
# warm-up; 10 us after 2.5 us on the 1056-node dragonfly), found by
# bisection to 1/64 of the injection bandwidth, and the accepted load
# there.  Deterministic: the same table every run.
set -eu
BUILD=build
if [ "${1:-}" = "-b" ]; then BUILD=$2; shift 2; fi
HOPSCOPE=$BUILD/bin/hopscope
ROWS=${*:-"torus dragonfly fattree1 fattree4 torus4 dragonfly4 dragonfly_speedup"}
CYC=lat=2.56ns,nlat=2.56ns

# accepted load at offered load $1 (remaining arguments: simulate options)
accepted() {
    l=$1
    shift
    "$HOPSCOPE" simulate --load "$l" --tsv --drain 1ns "$@" | tail -1 | cut -f3
}

# saturation throughput: bisection on the offered load
saturation() {
    a=$(accepted 1.0 "$@")
    if awk -v a="$a" 'BEGIN { exit !(a >= 0.97) }'; then
        echo "$a"
        return
    fi
    lo=0 hi=1 best=0
    for _ in 1 2 3 4 5 6; do
        mid=$(awk -v lo="$lo" -v hi="$hi" 'BEGIN { printf "%.6f", (lo + hi) / 2 }')
        a=$(accepted "$mid" "$@")
        if awk -v a="$a" -v m="$mid" 'BEGIN { exit !(a >= 0.97 * m) }'; then
            lo=$mid best=$a
        else
            hi=$mid
        fi
    done
    echo "$best"
}

# BookSim2's example configurations, as router options
TORUS88=router=booksim,vc_buf_size=8
FATTREE_CONFIG=router=booksim,vc_buf_size=16,routing_delay=0,credit_delay=2,hold_switch_for_packet=1
DRAGONFLYCONFIG=router=booksim,vc_buf_size=256,routing_delay=0,credit_delay=2,hold_switch_for_packet=1

row() {
    name=$1 topo=$2 flits=$3 cfg=$4 ref=$5 hsref=$6 dur=$7
    vcbuf=$(echo "$cfg" | sed 's/.*vc_buf_size=\([0-9]*\).*/\1/')
    size=$((flits * 64))
    opts="--traffic uniform --mtu $size --size $size --duration $dur"
    d=$(saturation --topo "$topo,$CYC" $opts --buffer $((vcbuf * 64)) --route-delay 2.56ns)
    b=$(saturation --topo "$topo,$CYC,$cfg" $opts)
    awk -v n="$name" -v d="$d" -v b="$b" -v r="$ref" -v h="$hsref" 'BEGIN {
        printf "| %s | %.3f (%s) | %.3f | %s | %+.0f%% |\n", n, d, h, b, r, 100 * (b - r) / r }'
}

echo "| configuration | default router (issue) | router=booksim | BookSim2 | booksim vs BookSim2 |"
echo "|---|---|---|---|---|"
for r in $ROWS; do
    case $r in
    torus) row "8x8 torus, 2 VCs x 8, 1 flit" "torus:8x8,vcs=2" 1 "$TORUS88" 0.25 0.45 20us ;;
    dragonfly) row "dragonfly a=8,p=4,h=4,g=33 min, 2 VCs x 256, 1 flit" \
        "dragonfly:a=8,p=4,h=4,g=33,routing=min,glat=2.56ns" 1 "$DRAGONFLYCONFIG" 0.38 0.62 10us ;;
    fattree1) row "4-ary 3-tree, 1 VC x 16, 1 flit" "fattree:k=4,n=3" 1 "$FATTREE_CONFIG" \
        0.31 0.73 20us ;;
    fattree4) row "4-ary 3-tree, 4 VCs x 16, 1 flit" "fattree:k=4,n=3,vcs=4" 1 \
        "$FATTREE_CONFIG" 0.73 0.73 20us ;;
    torus4) row "8x8 torus, 2 VCs x 8, 4 flits" "torus:8x8,vcs=2" 4 "$TORUS88" 0.33 0.30 20us ;;
    dragonfly4) row "dragonfly min, 2 VCs x 256, 4 flits" \
        "dragonfly:a=8,p=4,h=4,g=33,routing=min,glat=2.56ns" 4 "$DRAGONFLYCONFIG" 0.50 0.62 10us ;;
    dragonfly_speedup) row "dragonfly, 1 flit, internal_speedup=2.0" \
        "dragonfly:a=8,p=4,h=4,g=33,routing=min,glat=2.56ns" 1 \
        "$DRAGONFLYCONFIG,internal_speedup=2.0" 0.38 0.62 10us ;;
    *) echo "unknown row $r" >&2; exit 2 ;;
    esac
done
