#!/bin/sh
# fabric/ memory: peak resident set of `hopscope simulate` on a 16512-node
# dragonfly (a=16, p=8, h=8, g=129, UGAL-L) under uniform load, against the
# same network idle (baseline, one message) in the same run, with the
# engine's model state by part; then a 65536-node fat-tree (fattree:k=16,n=4,
# 32-port switches, 524288 directed links) replaying a `hopscope gen` trace
# of a 3D halo exchange on 65536 ranks (target: fits in 24 GB).  Memory is
# deterministic, so one run each.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
T=dragonfly:a=16,p=8,h=8,g=129,routing=ugal
W=$BUILD/bench-results/fabric-memory
rm -rf "$W"; mkdir -p "$W"

# The "memory" line: total MB, the parts "name MB" (comma-separated) and
# the packets in flight at most, tab-separated.
memline() {
    sed -n 's/^memory *\([0-9.]*\) MB of model state (\(.*\) MB), at most \([0-9]*\) packets.*/\1\t\2\t\3/p' "$1"
}

peak() { # label args...: label, peak RSS KB, CPU s, total MB, parts, packets peak, hops
    label=$1; shift
    /usr/bin/time -f "RSS %M CPU %U %S" -o "$W/time" "$H" simulate --topo $T "$@" > "$W/out"
    rss=$(sed -n 's/^RSS \([0-9]*\) CPU.*/\1/p' "$W/time")
    cpu=$(awk '/^RSS/ { print $4 + $5 }' "$W/time")
    hops=$(sed -n 's/^simulated .* events, \([0-9]*\) packet hops in .*/\1/p' "$W/out")
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$rss" "$cpu" "$(memline "$W/out")" "$hops"
}

{
    peak "idle (one message; baseline)" --packets 1
    peak "uniform, offered 0.5, 10 us" --load 0.5 --duration 10us
    peak "uniform, offered 1.0 (saturated), 10 us" --load 1.0 --duration 10us
} > "$W/tsv"

# The 65536-node replay.
BT=fattree:k=16,n=4
RANKS=65536; ITERS=3
"$H" gen halo3d --ranks $RANKS --iters $ITERS -o "$W/halo.trace" --quiet
/usr/bin/time -f "RSS %M CPU %U %S WALL %e" -o "$W/time" "$H" simulate --topo $BT \
    -i "$W/halo.trace" -o "$W/run" > "$W/big.out"
big_rss=$(sed -n 's/^RSS \([0-9]*\) CPU.*/\1/p' "$W/time")
big_cpu=$(awk '/^RSS/ { print $4 + $5 }' "$W/time")
big_mem=$(memline "$W/big.out")
big_sim=$(sed -n 's/^simulated *//p' "$W/big.out")
big_msg=$(sed -n 's/^messages *//p' "$W/big.out")
big_pred=$(sed -n 's/^predicted *\([^ ]* [^ ]*\) .*/\1/p' "$W/big.out")
trace_mb=$(du -sk "$W/halo.trace" | awk '{ printf "%.0f", $1 / 1024 }')
run_mb=$(du -sk "$W/run" | awk '{ printf "%.0f", $1 / 1024 }')
links=$("$H" topo $BT | sed -n 's/^links *\([0-9]*\) directed.*/\1/p')

base=$(awk -F'\t' 'NR == 1 { print $2 }' "$W/tsv")
{
    echo "16512 nodes, 2064 switches, 80496 directed links, 3 VCs of 32 KiB per port; in-band"
    echo "counters (k=17) per phase and per 10 us window, records on (cap 4M).  Peak RSS from"
    echo "\`/usr/bin/time\`; model state as the engine counts it (the \`memory\` line of"
    echo "\`simulate\`; pools count the slots ever used).  Target: < 8 GB."
    echo
    echo "| load | peak RSS | model state | packets in flight (peak) | packet hops | CPU time | vs idle |"
    echo "|---|---|---|---|---|---|---|"
    awk -F'\t' -v base="$base" '{
        printf "| %s | %.0f MB | %.0f MB | %s | %s | %.1f s | %.1fx |\n", $1, $2 / 1024, $4, $6, $7, $3, $2 / base }' "$W/tsv"
    echo
    echo "Model state by part, MB (links: transmitters, input FIFOs, credits, request bitsets and the"
    echo "link table; packets: packet, message and timer pools; truth/phase includes the totals):"
    echo
    awk -F'\t' 'NR == 1 { n = split($5, p, ", "); printf "| load |"; for (i = 1; i <= n; i++) { split(p[i], q, " "); printf " %s |", q[1] }
                          printf "\n|---|"; for (i = 1; i <= n; i++) printf "---|"; printf "\n" }
                { n = split($5, p, ", "); printf "| %s |", $1; for (i = 1; i <= n; i++) { split(p[i], q, " "); printf " %s |", q[2] }; printf "\n" }' "$W/tsv"
    echo
    echo "Command: \`/usr/bin/time -f %M hopscope simulate --topo $T --load 1.0 --duration 10us\`."
    echo
    echo "### 65536 nodes: a replay of a generated trace"
    echo
    echo "\`$BT\`: 65536 nodes, 16384 32-port switches, $links directed links, one VC of"
    echo "32 KiB per port.  Trace: \`hopscope gen halo3d --ranks $RANKS --iters $ITERS\` ($trace_mb MB;"
    echo "messages $big_msg), replayed with in-band counters per phase and window and records"
    echo "on, writing the run directory ($run_mb MB).  Target: fits in 24 GB."
    echo
    echo "| peak RSS | model state at the end | CPU time | predicted run time |"
    echo "|---|---|---|---|"
    printf '%s\t%s\t%s\n' "$big_rss" "$big_cpu" "$big_pred" | awk -F'\t' -v m="$big_mem" '{
        split(m, x, "\t"); printf "| %.0f MB | %.0f MB | %.0f s | %s |\n", $1 / 1024, x[1], $2, $3 }'
    echo
    printf '%s\n' "$big_mem" | awk -F'\t' '{ printf "Model state by part, MB: %s; at most %s packets in flight.\n", $2, $3 }'
    echo "Simulated: $big_sim."
    echo
    echo "Command: \`hopscope gen halo3d --ranks $RANKS --iters $ITERS -o halo.trace\`, then"
    echo "\`/usr/bin/time -f %M hopscope simulate --topo $BT -i halo.trace -o run\`."
} > "$OUT"
rm -rf "$W"
