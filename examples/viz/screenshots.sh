#!/bin/sh
# Regenerates the screenshots in docs/img/ that docs/viz.md shows: the
# three layouts (fat-tree, dragonfly router by router and 16k-node per
# group, torus), a topology file, phases as small multiples, two mappings
# compared, and the top of a report.  Every picture comes from a real
# simulate + analyze + render; the runs are deterministic, so the images
# change only when the code does.
#   sh examples/viz/screenshots.sh [BUILD] [OUTDIR]
# Needs chromium (headless).  Takes about a minute (the 16k-node dragonfly
# is most of it, with about 1.2 GB of model state).
set -eu
BUILD=${1:-build}
OUT=${2:-docs/img}
H="$BUILD/bin/hopscope"
W=$(mktemp -d "${TMPDIR:-/tmp}/viz-shots.XXXXXX")
trap 'rm -rf "$W"' EXIT
mkdir -p "$OUT"
CHROMIUM=$(command -v chromium || command -v chromium-browser)

sim() { # NAME simulate-args...
    n=$1; shift
    "$H" simulate "$@" -o "$W/$n" >/dev/null
    "$H" analyze "$W/$n" -q
}
# shot FILE.svg|html OUT.png [WIDTH HEIGHT]: an SVG at its own size unless given
shot() {
    w=${3:-$(sed -n 's/^<svg[^>]* width="\([0-9.]*\)".*/\1/p' "$1" | head -1 | cut -d. -f1)}
    h=${4:-$(sed -n 's/^<svg[^>]* height="\([0-9.]*\)".*/\1/p' "$1" | head -1 | cut -d. -f1)}
    prof=$(mktemp -d "$W/prof.XXXXXX")
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --hide-scrollbars --user-data-dir="$prof" --window-size="$w,$h" \
        --screenshot="$2" "file://$(readlink -f "$1")" >/dev/null 2>&1
    echo "$2 (${w}x${h})"
}

sim fattree --topo fattree:k=4,n=3 --traffic incast:target=0,senders=8,bg=0.3 --load 0.6
"$H" render "$W/fattree" -q --label "fat-tree, incast into n0 with background traffic"
shot "$W/fattree/network.svg" "$OUT/viz-fattree.png"

sim dragonfly --topo dragonfly:a=4,p=2,h=2,g=9 --traffic hotspot:target=5,frac=0.3 --load 0.5 \
    --duration 60us
"$H" render "$W/dragonfly" -q
shot "$W/dragonfly/network.svg" "$OUT/viz-dragonfly.png"

sim dragonfly16k --topo dragonfly:a=16,p=8,h=8,g=129 --traffic groupshift --load 0.5 --duration 20us
"$H" render "$W/dragonfly16k" -q
shot "$W/dragonfly16k/network.svg" "$OUT/viz-dragonfly-16k.png"
shot "$W/dragonfly16k/network-detail.svg" "$OUT/viz-dragonfly-16k-detail.png"

"$H" gen halo3d --ranks 64 --iters 40 --size 64K -o "$W/halo" --quiet
sim torus_random --topo torus:4x4x4 -i "$W/halo" --map random
sim torus_linear --topo torus:4x4x4 -i "$W/halo"
"$H" render "$W/torus_random" -q
"$H" render "$W/torus_linear" -q
"$H" render "$W/torus_random" --compare "$W/torus_linear" --label "random mapping" \
    --compare-label "linear mapping" -o "$W/compare" -q
shot "$W/torus_random/network.svg" "$OUT/viz-torus.png"
shot "$W/torus_linear/phases.svg" "$OUT/viz-phases.png"
shot "$W/compare/compare.svg" "$OUT/viz-compare.png"

"$H" gen canary --ranks 32 --iters 50 -o "$W/canary" --quiet
sim canary --topo fattree:k=8,n=2 -i "$W/canary" --map random --background mixed:frac=0.5 \
    --congestion-impact
"$H" render "$W/canary" -q
shot "$W/canary/latency.svg" "$OUT/viz-latency.png"

sim file --topo file:examples/viz/leafspine.topo --traffic incast:target=13,senders=8,bg=0.3 \
    --load 0.5
"$H" render "$W/file" -q
shot "$W/file/network.svg" "$OUT/viz-file.png"
shot "$W/fattree/report.html" "$OUT/viz-report.png" 1400 1100
