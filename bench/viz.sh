#!/bin/sh
# bench/viz.sh BUILD OUT.md: how long 'hopscope render' takes and how large
# its files are on a 16k-node dragonfly (dragonfly:a=16,p=8,h=8,g=129:
# 16512 nodes, 2064 routers, 80496 links), the size the aggregated layout
# exists for.  Three runs: group shift (every group sends to the next: 129
# congested global bundles), uniform traffic for 10 us (traffic on all 16512
# group-to-group bundles, too few sampled packets on each for a verdict: left
# out of the ring) and for 60 us (a verdict on every bundle: all drawn, the
# most the ring ever holds).  Baseline: 'hopscope analyze' of the same run,
# measured in the same session.  Also: what drawing every link (--detail
# full) would cost.
set -u
BUILD=$1
OUT=$2
H="$BUILD/bin/hopscope"
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-viz.XXXXXX")
trap 'rm -rf "$W"' EXIT
TOPO=dragonfly:a=16,p=8,h=8,g=129
ROUNDS=5

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# seconds of N runs of a command, median
timed() { # N cmd...
    n=$1; shift
    i=0
    while [ $i -lt "$n" ]; do
        t0=$(now); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }; t1=$(now)
        echo "$t1 - $t0" | bc -l
        i=$((i + 1))
    done | median
}
rss() { # peak resident set of one run, MB
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{ printf "%.0f", $1 / 1024 }'
    else
        echo "-"
    fi
}
size_kb() { [ -f "$1" ] && awk -v b="$(wc -c <"$1")" 'BEGIN { printf "%.0f", b / 1000 }' || echo "-"; }

"$H" simulate --topo "$TOPO" --traffic groupshift --load 0.5 --duration 20us -o "$W/shift" >/dev/null ||
    exit 1
"$H" simulate --topo "$TOPO" --traffic uniform --load 0.3 --duration 10us -o "$W/uniform-10us" \
    >/dev/null || exit 1
"$H" simulate --topo "$TOPO" --traffic uniform --load 0.3 --duration 60us -o "$W/uniform-60us" \
    >/dev/null || exit 1

{
    echo "What: \`hopscope render\` of a 16k-node dragonfly ($TOPO: 16512 nodes, 2064 routers,"
    echo "80496 links), median of $ROUNDS renders; baseline: \`hopscope analyze\` of the same run"
    echo "(median of 3).  Sizes in kB (1000 bytes).  Default layout: groups on a ring, one"
    echo "bundle per direction between two groups, the 3 most congested groups in detail."
    echo
    echo "| traffic | analysis.json kB | analyze s | render s | render / analyze | peak RSS MB | network.svg kB | network-detail.svg kB | report.html kB | bundles drawn / idle / no verdict |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$OUT"
for run in shift uniform-10us uniform-60us; do
    "$H" analyze "$W/$run" -q || exit 1
    ta=$(timed 3 "$H" analyze "$W/$run" -q)
    tr=$(timed $ROUNDS "$H" render "$W/$run" -o "$W/$run.out" -q)
    mem=$(rss "$H" render "$W/$run" -o "$W/$run.out" -q)
    f="$W/$run.out/network.svg"
    d=$(grep -o '([0-9]* drawn, [0-9]* without traffic' "$f" | head -1 | tr -dc '0-9 ' | awk '{ print $1 " / " $2 }')
    v=$(grep -o '[0-9]* more with traffic but too few' "$f" | head -1 | awk '{ print $1 }')
    drawn="$d / ${v:-0}"
    ratio=$(echo "$tr / $ta" | bc -l)
    printf '| %s | %s | %.2f | %.2f | %.2f | %s | %s | %s | %s | %s |\n' "$run" \
        "$(size_kb "$W/$run/analysis.json")" "$ta" "$tr" "$ratio" "$mem" \
        "$(size_kb "$W/$run.out/network.svg")" "$(size_kb "$W/$run.out/network-detail.svg")" \
        "$(size_kb "$W/$run.out/report.html")" "$drawn" >>"$OUT"
done
# the other layouts at a comparable size (uniform traffic, 10 us)
{
    echo
    echo "Other layouts at scale (uniform traffic, load 0.3, 10 us; median of $ROUNDS renders):"
    echo
    echo "| network | nodes | links | render s | peak RSS MB | network.svg kB | network-detail.svg kB | report.html kB |"
    echo "|---|---|---|---|---|---|---|---|"
} >>"$OUT"
for t in fattree:k=16,n=3 torus:16x16x16; do
    d="$W/$(echo "$t" | tr ':=,' '___')"
    "$H" simulate --topo "$t" --traffic uniform --load 0.3 --duration 10us -o "$d" >/dev/null || exit 1
    "$H" analyze "$d" -q || exit 1
    tr=$(timed $ROUNDS "$H" render "$d" -o "$d.out" -q)
    mem=$(rss "$H" render "$d" -o "$d.out" -q)
    nn=$(grep -o '"nodes":[0-9]*' "$d/analysis.json" | head -1 | cut -d: -f2)
    nl=$(grep -o '"links":[0-9]*' "$d/analysis.json" | head -1 | cut -d: -f2)
    printf '| %s | %s | %s | %.2f | %s | %s | %s | %s |\n' "$t" "$nn" "$nl" "$tr" "$mem" \
        "$(size_kb "$d.out/network.svg")" "$(size_kb "$d.out/network-detail.svg")" \
        "$(size_kb "$d.out/report.html")" >>"$OUT"
done
# every link drawn: once, to show what aggregation saves
tf=$(timed 1 "$H" render "$W/shift" --detail full -o "$W/full" -q)
{
    echo
    printf 'Every link drawn instead (`--detail full`, group shift): render %.2f s, ' "$tf"
    echo "network.svg $(size_kb "$W/full/network.svg") kB, report.html $(size_kb "$W/full/report.html") kB."
    echo
    echo "The three runs are simulated first (about 30 s, 1.2 GB of model state for the group"
    echo "shift)."
} >>"$OUT"
# a browser on the largest picture: headless Chromium, start to screenshot
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
shot() {
    prof=$(mktemp -d "$W/prof.XXXXXX")
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --window-size=1100,1100 --screenshot="$W/shot.png" "$1"
    rm -rf "$prof"
}
if [ -n "$CHROMIUM" ]; then
    blank="$W/blank.html"
    echo '<html><body></body></html>' >"$blank"
    tb=$(timed 3 shot "file://$blank")
    tw=$(timed 3 shot "file://$W/uniform-60us.out/network.svg")
    {
        echo
        printf 'Headless Chromium, start to screenshot (median of 3): the worst case'"'"'s network.svg '
        printf '(%s kB) %.2f s, an empty page %.2f s.\n' "$(size_kb "$W/uniform-60us.out/network.svg")" "$tw" "$tb"
    } >>"$OUT"
fi
