#!/bin/sh
# fabric/ engine speed against switch radix and network size, at
# saturation (uniform traffic, offered load 1.0): packet hops per second on
# a 16512-node dragonfly (31-port routers, 3 VCs, UGAL-L) and on a
# 32768-node 3-level fat-tree of 64-port switches, against the 2-level
# fat-tree of 8-port switches as the baseline of the same run.  Two middle
# rows separate radix from size: the same 64-port switches and 31-port x 3
# VC routers in networks of about 2000 nodes.  Memory per directed link:
# the engine's model state of the idle network (one packet) over its links.
# The big networks take tens of seconds a run: RUNS rounds, each bounded
# by a timeout; a run that times out is reported, not hidden.
# RADIX_BASE=DIR (a build directory, e.g. of main before a change) runs
# its hopscope too, interleaved with this build's in every round, and adds
# its CPU figures and the ratio: a before/after comparison measured in the
# same run.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
BASE=${RADIX_BASE:-}
RUNS=${RADIX_RUNS:-3}
LIMIT=${RADIX_TIMEOUT:-600}
# Every run: offered load 1.0, a warm-up, a measured window, and at most
# 1 us of drain (a saturated network never drains); the windows give each
# network a few million hops (the 16-node baseline needs a long one).
L="--load 1.0 --drain 1us"
BIG="--warmup 5us --duration 5us"
MID="--warmup 5us --duration 20us"
SMALL="--warmup 100us --duration 1000us"

# configuration k: topology | label | window
cfg() {
    case $1 in
    1) echo "fattree:k=4,n=2|2-level fat-tree, 8-port switches, 16 nodes (baseline)|$SMALL" ;;
    2) echo "fattree:k=32,n=2|2-level fat-tree, 64-port switches, 1024 nodes|$MID" ;;
    3) echo "fattree:k=32,n=3|3-level fat-tree, 64-port switches, 32768 nodes|$BIG" ;;
    4) echo "dragonfly:a=16,p=8,h=8,g=17,routing=ugal|dragonfly a=16 p=8 h=8 g=17 (UGAL-L), 31 ports x 3 VCs, 2176 nodes|$MID" ;;
    5) echo "dragonfly:a=16,p=8,h=8,g=129,routing=ugal|dragonfly a=16 p=8 h=8 g=129 (UGAL-L), 31 ports x 3 VCs, 16512 nodes|$BIG" ;;
    esac
}
K="1 2 3 4 5"

# one run: hops, seconds of simulation (the "simulated" line, wall clock)
# and CPU seconds of the whole process (user + system, setup included),
# or "timeout"
one() {
    if /usr/bin/time -f "CPU %U %S" -o "$OUT.time" timeout "$LIMIT" "${HB:-$H}" simulate --topo "$1" $L $2 > "$OUT.one"; then
        cpu=$(awk '/^CPU/ { print $2 + $3 }' "$OUT.time")
        echo "$(sed -n 's/^simulated .*: [0-9]* events, \([0-9]*\) packet hops in \([0-9.e-]*\) s .*/\1 \2/p' "$OUT.one") $cpu"
    else
        echo "timeout"
    fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$OUT.raw"
: > "$OUT.base"
for i in $(seq "$RUNS"); do
    for k in $K; do
        t=$(cfg $k | cut -d'|' -f1)
        w=$(cfg $k | cut -d'|' -f3)
        echo "$k $(one "$t" "$w")" >> "$OUT.raw"
        if [ -n "$BASE" ]; then
            echo "$k $(HB=$BASE/bin/hopscope one "$t" "$w")" >> "$OUT.base"
        fi
    done
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
# memory: model state of the idle network, and its links
: > "$OUT.mem"
for k in $K; do
    t=$(cfg $k | cut -d'|' -f1)
    "$H" simulate --topo "$t" --packets 1 > "$OUT.m1"
    mb=$(sed -n 's/^memory *\([0-9.]*\) MB .*/\1/p' "$OUT.m1")
    links=$("$H" topo "$t" | sed -n 's/^links *\([0-9]*\) directed.*/\1/p')
    echo "$k $mb $links" >> "$OUT.mem"
done
rm -f "$OUT.m1" "$OUT.one" "$OUT.time"

for k in $K; do
    label=$(cfg $k | cut -d'|' -f2)
    awk -v k=$k -v label="$label" '
        $1 == k && $2 == "timeout" { to++ }
        $1 == k && $2 != "timeout" { n++; hops = $2; r[n] = $2 / $3; c[n] = $2 / $4 }
        END {
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
                if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
                if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
            }
            med = n ? r[int((n + 1) / 2)] : 0
            cmed = n ? c[int((n + 1) / 2)] : 0
            printf "%s\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%.3f\n", label, med / 1e6, n ? r[1] / 1e6 : 0, n ? r[n] / 1e6 : 0, hops, n, to, cmed / 1e6
        }' "$OUT.raw"
done > "$OUT.tsv"
base=$(awk -F'\t' 'NR == 1 { print $2 }' "$OUT.tsv")
{
    echo "Uniform random traffic at offered load 1.0 (saturation), 4 KiB messages, Poisson arrivals,"
    echo "seed 1; in-band marking, counters and records on.  Wall: packet hops over the seconds of"
    echo "\`hs_traffic_run\` (the simulation, not setup) as \`simulate\` prints them; CPU: packet"
    echo "hops over the process's user + system CPU time, setup included (a lower bound per core,"
    echo "less hurt by the other tenants).  Median of $RUNS rounds (wall min-max), the"
    echo "configurations interleaved in each round.  Target: >= 5 M hops/s per core on the two"
    echo "large networks."
    echo
    echo "| network | M packet hops/s (wall) | min-max | M hops per CPU second | packet hops per run | vs baseline (wall) | model state per directed link (idle) |"
    echo "|---|---|---|---|---|---|---|"
    paste "$OUT.tsv" "$OUT.mem" | awk -F'\t' -v base="$base" '{
        split($9, m, " ")
        note = $7 > 0 ? sprintf(" (%d of the runs timed out)", $7) : ""
        printf "| %s | %.2f%s | %.2f-%.2f | %.2f | %d | %.2fx | %.0f B (%.1f MB / %d links) |\n",
               $1, $2, note, $3, $4, $8, $5, (base > 0 ? $2 / base : 0), m[2] * 1e6 / m[3], m[2], m[3] }'
    if [ -n "$BASE" ]; then
        echo
        echo "Against the build in \`$BASE\` (RADIX_BASE), run interleaved with this one in"
        echo "every round (the same $RUNS rounds): M packet hops per CPU second, median, and the"
        echo "ratio of the medians."
        echo
        echo "| network | this build | base build | this / base |"
        echo "|---|---|---|---|"
        for k in $K; do
            label=$(cfg $k | cut -d'|' -f2)
            for f in "$OUT.raw" "$OUT.base"; do
                awk -v k=$k '$1 == k && $2 != "timeout" { n++; c[n] = $2 / $4 }
                    END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                              if (c[j] < c[i]) { t = c[i]; c[i] = c[j]; c[j] = t }
                          printf "%.3f\n", n ? c[int((n + 1) / 2)] / 1e6 : 0 }' "$f"
            done | paste -s -d' ' | awk -v label="$label" '{
                printf "| %s | %.2f | %.2f | %.2fx |\n", label, $1, $2, ($2 > 0 ? $1 / $2 : 0) }'
        done
    fi
    echo
    awk '{ mb[$1] = $2; l[$1] = $3 } END {
        printf "Memory per directed link, marginal (the idle model state of the large network minus the\n"
        printf "middle one, over the links added: engine state, ground truth of one window and one phase,\n"
        printf "in-band counter tables, which grow with the link count): fat-trees %.0f B, dragonflies\n",
               (mb[3] - mb[2]) * 1e6 / (l[3] - l[2])
        printf "%.0f B per link.  On the small networks fixed tables (phase index, counter tables sized\n",
               (mb[5] - mb[4]) * 1e6 / (l[5] - l[4])
        printf "for k >= 16) dominate the per-link figure.  Packets in flight add 64 + 24 bytes each.\n"
    }' "$OUT.mem"
    echo
    echo "Load average (1, 5, 15 min) on the 2 shared cores: $load0 before, $load1 after the runs;"
    echo "other sessions ran meanwhile, so the absolute figures are low and noisy: read the"
    echo "ratios of the same round.  Commands: \`hopscope simulate --topo T $L W\`, W the window:"
    echo "\`$SMALL\` (baseline), \`$MID\` (1024 and 2176 nodes), \`$BIG\` (the two large networks)."
} > "$OUT"
rm -f "$OUT.raw" "$OUT.base" "$OUT.tsv" "$OUT.mem"
