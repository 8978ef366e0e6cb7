#!/bin/sh
# fabric/ memory: peak resident set of `hopscope simulate` on a 16512-node
# dragonfly (a=16, p=8, h=8, g=129, UGAL-L) under uniform load, against the
# same network idle (baseline, one message) in the same run.  Memory is
# deterministic, so one run each.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
T=dragonfly:a=16,p=8,h=8,g=129,routing=ugal

peak() { # label args...: label, peak RSS MB, model MB, packets peak, hops, seconds
    label=$1; shift
    /usr/bin/time -f "RSS %M" "$H" simulate --topo $T "$@" > "$OUT.out" 2> "$OUT.err"
    rss=$(sed -n 's/^RSS \([0-9]*\)$/\1/p' "$OUT.err")
    model=$(sed -n 's/^memory *\([0-9.]*\) MB .*, at most \([0-9]*\) packets.*/\1 \2/p' "$OUT.out")
    hops=$(sed -n 's/^simulated .* events, \([0-9]*\) packet hops in \([0-9.e-]*\) s.*/\1 \2/p' "$OUT.out")
    printf '%s\t%s\t%s\t%s\n' "$label" "$rss" "$model" "$hops"
}

{
    peak "idle (one message; baseline)" --packets 1
    peak "uniform, offered 0.5, 10 us" --load 0.5 --duration 10us
    peak "uniform, offered 1.0 (saturated), 10 us" --load 1.0 --duration 10us
} > "$OUT.tsv"
base=$(awk -F'\t' 'NR == 1 { print $2 }' "$OUT.tsv")
{
    echo "16512 nodes, 2064 switches, 80496 directed links, 3 VCs of 32 KiB per port; in-band"
    echo "counters (k=17) per phase and per 10 us window, records on (cap 4M).  Peak RSS from"
    echo "\`/usr/bin/time\`; model state as the engine counts it.  Target: < 8 GB."
    echo
    echo "| load | peak RSS | model state | packets in flight (peak) | packet hops | run time | vs idle |"
    echo "|---|---|---|---|---|---|---|"
    awk -F'\t' -v base="$base" '{
        split($3, m, " "); split($4, h, " ")
        printf "| %s | %.0f MB | %.0f MB | %s | %s | %.1f s | %.1fx |\n", $1, $2 / 1024, m[1], m[2], h[1], h[2], $2 / base }' "$OUT.tsv"
    echo
    echo "Command: \`/usr/bin/time -f %M hopscope simulate --topo $T --load 1.0 --duration 10us\`."
} > "$OUT"
rm -f "$OUT.tsv" "$OUT.out" "$OUT.err"
