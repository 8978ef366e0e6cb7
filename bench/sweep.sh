#!/bin/sh
# hopscope sweep throughput: runs per hour of a 256-rank sweep on this
# machine.  The trace is a 3D halo exchange (hopscope gen halo3d, 256 ranks,
# 20 iterations of six 64 KiB faces), replayed on a 64-node fat-tree
# tapered 2:1 (fattree:k=8,n=2,taper=2), 4 ranks per node, under 24 random
# mappings, -j = the cores; each run is replayed, analysed and reduced to
# its features (docs/formats.md, "sweep.csv").  Median of 3 sweeps, each
# into a fresh directory.  Baseline in the same run: the same replays done
# one after the other by hand (hopscope simulate + hopscope analyze, one
# process each), so the ratio says what the sweep's scheduling, features
# and parallelism give over a shell loop.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
RUNS=3
N=24
T=fattree:k=8,n=2,taper=2
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-bench-sweep.XXXXXX")
trap 'rm -rf "$W"' EXIT
now() { date +%s.%N; }

"$H" gen halo3d --ranks 256 --iters 20 --size 64K -o "$W/halo" > /dev/null
J=$(nproc)
load0=$(cut -d' ' -f1 /proc/loadavg)
: > "$W/raw"
for i in $(seq $RUNS); do
    rm -rf "$W/s"
    t0=$(now)
    /usr/bin/time -f "%M" -o "$W/rss" "$H" sweep -i "$W/halo" --topo $T --ppn 4 --random $N -j "$J" -q -o "$W/s" > /dev/null
    t1=$(now)
    rows=$(($(wc -l < "$W/s/sweep.csv") - 1))
    # the baseline: 4 of the same runs by hand, sequentially, scaled to N
    b0=$(now)
    for s in 1 2 3 4; do
        "$H" simulate --topo $T --ppn 4 -i "$W/halo" --map random:$s --seed 1 --quiet -o "$W/r" > /dev/null
        "$H" analyze -q --no-windows "$W/r" > /dev/null
    done
    b1=$(now)
    echo "$(echo "$t1 - $t0" | bc) $rows $(echo "($b1 - $b0) / 4" | bc -l) $(cat "$W/rss")" >> "$W/raw"
done
load1=$(cut -d' ' -f1 /proc/loadavg)
ncols=$(head -1 "$W/s/sweep.csv" | awk -F, '{print NF}')
awk -v n=$N -v j="$J" -v runs=$RUNS -v l0="$load0" -v l1="$load1" -v ncols="$ncols" -v T="$T" '
    function med(a, k,   i, q, t) { for (i = 1; i <= k; i++) for (q = i + 1; q <= k; q++) if (a[q] < a[i]) { t = a[i]; a[i] = a[q]; a[q] = t }; return a[int((k + 1) / 2)] }
    { k++; wall[k] = $1; rows = $2; per[k] = $3; rss = $4 }
    END {
        w = med(wall, k); p = med(per, k)
        printf "A 256-rank 3D halo exchange (`hopscope gen halo3d --ranks 256 --iters 20 --size 64K`) swept over %d random mappings on `%s` (64 nodes, 4 ranks per node), `-j %d`; each run replayed, analysed (no windows) and reduced to %d features.  Median of %d sweeps; load average %s before, %s after (the machine is shared: the figures are lower bounds of what it does alone).\n\n", n, T, j, ncols - 9, runs, l0, l1
        print "| measure | value |"
        print "|---|---|"
        printf "| sweep wall time, %d runs | %.2f s |\n", n, w
        printf "| **runs per hour** (`hopscope sweep -j %d`) | **%.0f** |\n", j, n * 3600 / w
        printf "| baseline: one run by hand (`simulate` + `analyze`, sequential) | %.3f s (%.0f runs per hour) |\n", p, 3600 / p
        printf "| sweep vs the sequential loop | %.2fx |\n", p * n / w
        printf "| rows written | %d of %d |\n", rows, n
        printf "| peak resident memory of the largest process of the sweep (a run; `/usr/bin/time %%M`) | %d KiB |\n", rss
        print ""
        print "The sweep parent only schedules; each run is a child process with its own memory (one replay), so the whole sweep holds at most -j times that."
    }' "$W/raw" > "$OUT"
