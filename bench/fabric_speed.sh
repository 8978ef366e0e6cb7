#!/bin/sh
# fabric/ engine speed: packet hops (transmissions of a packet on a link)
# per second on 1024-node fat-trees under heavy uniform load, in-band
# marking, counting and records on; baseline in the same run: the same
# traffic with no packet monitored (no marking, counters or records).
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
RUNS=5

# one run: events, hops, seconds from the "simulated" line
one() {
    "$H" simulate "$@" | sed -n 's/^simulated .*: \([0-9]*\) events, \([0-9]*\) packet hops in \([0-9.e-]*\) s .*/\1 \2 \3/p'
}

T2=fattree:k=32,n=2
T3=fattree:down=8x8x16,up=1x8x8
D="--duration 100us"
# rounds interleave the configurations, so that a busy host slows all alike
: > "$OUT.raw"
for i in $(seq $RUNS); do
    echo "1 $(one --topo $T2 --load 0.55 $D)" >> "$OUT.raw"
    echo "2 $(one --topo $T2 --load 0.55 $D --monitor 0 --no-records)" >> "$OUT.raw"
    echo "3 $(one --topo $T2 --load 1.0 $D)" >> "$OUT.raw"
    echo "4 $(one --topo $T3 --load 0.55 $D)" >> "$OUT.raw"
done
for k in 1 2 3 4; do
    case $k in
    1) label="2-level (32-ary 2-tree), offered 0.55 (saturation)" ;;
    2) label="2-level, offered 0.55, no packet monitored (baseline)" ;;
    3) label="2-level, offered 1.0 (beyond saturation)" ;;
    4) label="3-level (16-port switches), offered 0.55" ;;
    esac
    awk -v k=$k -v label="$label" '
        $1 == k { n++; ev = $2; hops = $3; r[n] = $3 / $4 }
        END {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
            med = r[int((n + 1) / 2)]
            printf "%s\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\n", label, med / 1e6, ev / hops * med / 1e6, ev / hops, r[1] / 1e6, r[n] / 1e6
        }' "$OUT.raw"
done > "$OUT.tsv"
rm -f "$OUT.raw"

base=$(awk -F'\t' 'NR == 2 { print $2 }' "$OUT.tsv")
{
    echo "Uniform random traffic, 4 KiB messages, Poisson arrivals, 100 us measured after 25 us, seed 1;"
    echo "in-band field c=4, b=1 on every packet, NIC counters per phase and window, records on."
    echo "Timed: \`hs_traffic_run\` (the whole simulation including the traffic generator, not setup)."
    echo "Median of $RUNS runs (min-max in brackets).  Target: >= 5 M hops/s per core."
    echo
    echo "| 1024-node fat-tree | M packet hops/s | M events/s | events per hop | vs baseline |"
    echo "|---|---|---|---|---|"
    awk -F'\t' -v base="$base" '{ printf "| %s | %.2f [%.2f-%.2f] | %.2f | %.2f | %.2fx |\n", $1, $2, $5, $6, $3, $4, $2 / base }' "$OUT.tsv"
    echo
    echo "Commands: \`hopscope simulate --topo $T2 --load 0.55 $D\` (and \`--monitor 0 --no-records\`, \`--load 1.0\`, \`--topo $T3\`)."
} > "$OUT"
rm -f "$OUT.tsv"
