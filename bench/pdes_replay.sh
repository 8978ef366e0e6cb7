#!/bin/sh
# The MPI replay over MPI processes (issue 15; docs/fabric.md, "The MPI
# replay in parallel"): a 4096-rank 3D halo (hopscope gen halo3d, ITERS
# iterations of six 64 KiB faces, rendezvous) on the 1024-node fat-tree of
# bench/replay_halo.sh (k=32, n=2, 4 ranks per node), replayed by hopscope
# (the baseline) and by hopscope-par under Open MPI with 1 and 2 processes.
# Per run: the wall time of the command, the CPU time of all its processes
# (user + sys), peak RSS of the largest process, and whether the run
# directory is byte-identical to hopscope's (app.json records the command
# line, which differs by --par-stats: compared without that line); with 2
# processes also the critical path (--par-stats: per window, the largest
# CPU time of a process, summed) and the speed-up it predicts for idle
# cores: the 1-process run's CPU time running windows over it.  Each
# configuration runs RUNS times, interleaved; the fastest is kept.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
P=$BUILD/bin/openmpi/hopscope-par
T=fattree:k=32,n=2
ITERS=${ITERS:-20}
RUNS=${RUNS:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-bench-pdes-replay.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=$(command -v mpirun.openmpi || command -v mpirun)
now() { date +%s.%N; }
# the run directory's hash, app.json without its command line
files_hash() { (cd "$1" && { md5sum -- $(ls | grep -v '^app.json$'); grep -v '"simulate_command"' app.json | md5sum; } | md5sum | cut -c1-12); }
pstat() { sed -n "s/^par-stats part $2\/.* $3 \([0-9.]*\).*/\1/p" "$1"; }
crit() { sed -n 's/^par-stats critical path \([0-9.]*\) s.*/\1/p' "$1"; }

"$H" gen halo3d --ranks 4096 --iters "$ITERS" --size 64K -o "$W/halo" > /dev/null
load0=$(cut -d' ' -f1-3 /proc/loadavg)
: > "$W/raw"
for rep in $(seq "$RUNS"); do
    for np in 0 1 2; do
        rm -rf "$W/run"
        t0=$(now)
        if [ "$np" = 0 ]; then
            /usr/bin/time -f "%U %S %M" -o "$W/time" "$H" simulate -i "$W/halo" --topo $T \
                --ppn 4 --quiet -o "$W/run" > /dev/null 2>&1
            cpu=$(awk '{ print $1 + $2 }' "$W/time"); rss=$(awk '{ print $3 }' "$W/time")
        else
            /usr/bin/time -f "%U %S" -o "$W/time" "$MPIRUN" --oversubscribe -np "$np" \
                "$P" simulate -i "$W/halo" --topo $T --ppn 4 --par-stats --quiet \
                -o "$W/run" > "$W/ps" 2>&1 < /dev/null
            cpu=$(awk '{ print $1 + $2 }' "$W/time")
            rss=$(sed -n 's/.*peak_rss \([0-9]*\) KB.*/\1/p' "$W/ps" | sort -n | tail -1)
        fi
        t1=$(now)
        wall=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')
        h=$(files_hash "$W/run")
        [ "$np" = 0 ] && echo "$h" > "$W/seqhash"
        run0=""; c2=""
        [ "$np" = 1 ] && run0=$(pstat "$W/ps" 0 run_cpu)
        [ "$np" = 2 ] && c2=$(crit "$W/ps")
        echo "$np $wall $cpu $rss $h ${run0:--} ${c2:--}" >> "$W/raw"
    done
done
seqh=$(cat "$W/seqhash")
best() { awk -v n="$1" '$1 == n' "$W/raw" | sort -k2,2n | head -1; }
{
    echo "A 4096-rank halo3d ($ITERS iterations, 64 KiB faces) on \`$T --ppn 4\`, replayed"
    echo "by hopscope and by hopscope-par (Open MPI) with 1 and 2 processes; fastest of"
    echo "$RUNS interleaved runs each (load average at the start: $load0)."
    echo
    echo "| run | wall s | CPU s (all processes) | peak RSS KB (largest process) | run directory identical |"
    echo "|---|---|---|---|---|"
    for np in 0 1 2; do
        set -- $(best "$np")
        name="hopscope"; [ "$np" != 0 ] && name="hopscope-par -np $np"
        same=no; [ "$5" = "$seqh" ] && same=yes
        echo "| $name | $2 | $3 | $4 | $same |"
    done
    b0=$(best 0 | awk '{ print $2 }'); b2=$(best 2 | awk '{ print $2 }')
    r1=$(awk '$1 == 1 && $6 != "-" { print $6 }' "$W/raw" | sort -n | head -1)
    c2=$(awk '$1 == 2 && $7 != "-" { print $7 }' "$W/raw" | sort -n | head -1)
    echo
    echo "Speed-up of 2 processes by wall time over hopscope: $(echo "$b0 $b2" | awk '{ printf "%.2f", $1 / $2 }')x;"
    echo "predicted for idle cores by CPU time: the 1-process run's CPU running windows"
    echo "(${r1:-?} s) over the critical path with 2 (${c2:-?} s):"
    echo "$(echo "${r1:-0} ${c2:-1}" | awk '{ printf "%.2f", $1 / $2 }')x.  Target (issue 15): >= 1.7x."
} > "$OUT"
