#!/bin/sh
# A sweep over MPI processes (issue 15; docs/fabric.md, "Families of runs"):
# 8 runs of a 256-rank 3D halo exchange (hopscope gen halo3d --ranks 256
# --iters 20 --size 64K) on fattree:k=8,n=2,taper=2, 4 ranks per node,
# under 8 random mappings, each run replayed, analysed and reduced to its
# features.  Baseline in the same run: `hopscope sweep -j 1` (one run at a
# time); against it `mpirun -np 1` and `-np 2 hopscope-par sweep -j 1`
# (Open MPI; each process one run at a time, runs from rank 0's queue), and
# `hopscope sweep -j 2`, two runs at once without MPI: what -np 2 costs over
# it is the price of the processes and the queue (on one node; MPI pays
# across nodes).
# Wall time (the speed-up, on idle cores), and CPU time (user + sys of the
# launcher and everything it started, /usr/bin/time), which shows what the
# processes and the queue cost whatever the load.  Median of REPS (3)
# repetitions, the three configurations interleaved; sweep.csv compared
# with the baseline's.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
P=$BUILD/bin/openmpi/hopscope-par
REPS=${REPS:-3}
N=8
T=fattree:k=8,n=2,taper=2
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-bench-sweepmpi.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
now() { date +%s.%N; }

"$H" gen halo3d --ranks 256 --iters 20 --size 64K -o "$W/halo" > /dev/null
A="-i $W/halo --topo $T --ppn 4 --random $N -q"
load0=$(cut -d' ' -f1 /proc/loadavg)
: > "$W/raw"
for i in $(seq "$REPS"); do
    for c in seq np1 np2 j2; do
        rm -rf "$W/s"
        j=1
        case $c in
            seq) set -- "$H" ;;
            np1) set -- mpirun --oversubscribe -np 1 "$P" ;;
            np2) set -- mpirun --oversubscribe -np 2 "$P" ;;
            j2) set -- "$H"; j=2 ;;
        esac
        t0=$(now)
        # shellcheck disable=SC2086
        /usr/bin/time -f "%U %S" -o "$W/cpu" "$@" sweep $A -j $j -o "$W/s" > /dev/null 2> "$W/err" < /dev/null
        t1=$(now)
        [ "$c" = seq ] && cp "$W/s/sweep.csv" "$W/want.csv"
        same=$(cmp -s "$W/s/sweep.csv" "$W/want.csv" && echo 1 || echo 0)
        echo "$c $(echo "$t1 - $t0" | bc) $(awk '{print $1 + $2}' "$W/cpu") $same" >> "$W/raw"
    done
done
load1=$(cut -d' ' -f1 /proc/loadavg)
awk -v n=$N -v reps="$REPS" -v l0="$load0" -v l1="$load1" -v T="$T" -v cores="$(nproc)" '
    function med(a, k,   i, q, t) { for (i = 1; i <= k; i++) for (q = i + 1; q <= k; q++) if (a[q] < a[i]) { t = a[i]; a[i] = a[q]; a[q] = t }; return a[int((k + 1) / 2)] }
    { k[$1]++; w[$1, k[$1]] = $2; c[$1, k[$1]] = $3; if (!$4) diff[$1] = 1 }
    END {
        split("seq np1 np2 j2", cs, " ")
        for (j = 1; j <= 4; j++) { x = cs[j]; for (i = 1; i <= k[x]; i++) { ww[i] = w[x, i]; cc[i] = c[x, i] }; mw[x] = med(ww, k[x]); mc[x] = med(cc, k[x]) }
        printf "A 256-rank 3D halo exchange (`hopscope gen halo3d --ranks 256 --iters 20 --size 64K`) swept over %d random mappings on `%s` (64 nodes, 4 ranks per node), every process one run at a time (`-j 1`) unless said; each run replayed, analysed and reduced to its features.  Median of %d repetitions, interleaved; load average %s before, %s after, on %d cores.\n\n", n, T, reps, l0, l1, cores
        print "| command | wall time | speed-up (wall) | CPU time (user+sys, all processes) | CPU vs baseline | sweep.csv |"
        print "|---|---|---|---|---|---|"
        name["seq"] = "`hopscope sweep -j 1` (baseline)"
        name["np1"] = "`mpirun -np 1 hopscope-par sweep -j 1`"
        name["np2"] = "`mpirun -np 2 hopscope-par sweep -j 1`"
        name["j2"] = "`hopscope sweep -j 2` (two at once, no MPI)"
        for (j = 1; j <= 4; j++) { x = cs[j]
            printf "| %s | %.2f s | %.2fx | %.2f s | %+.1f%% | %s |\n", name[x], mw[x], mw["seq"] / mw[x], mc[x], 100 * (mc[x] / mc["seq"] - 1), diff[x] ? "DIFFERENT" : "identical" }
        print ""
        if (l0 + 0 > cores || l1 + 0 > cores)
            print "The machine had more runnable processes than cores: wall times and the speed-up are not the parallel speed-up; the CPU times show what the processes and the queue cost (compare -np 2 with -j 2, the same two runs at once without MPI).  On idle cores, 2 processes should approach 2x (8 runs, 4 each, the queue handing the next run to the first free process)."
        else
            print "On idle cores, 2 processes should approach 2x (8 runs, 4 each, the queue handing the next run to the first free process)."
    }' "$W/raw" > "$OUT"
