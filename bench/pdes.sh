#!/bin/sh
# Parallel runs (issue 15; docs/fabric.md, "Parallel runs"): the 16512-node
# dragonfly (a=16, p=8, h=8, g=129, UGAL-L, split by groups: lookahead =
# the 200 ns global cables) under uniform synthetic traffic, sequential
# (hopscope, the baseline) against hopscope-par with 1 and 2 processes
# under Open MPI, in the same run: wall time, speed-up, events per second
# per process, peak memory per process, and whether the run directories are
# identical.  The 4096-rank halo is not measured: a replay does not run in
# parallel yet.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
P=$BUILD/bin/openmpi/hopscope-par
T=dragonfly:a=16,p=8,h=8,g=129,routing=ugal
ARGS="--load 0.5 --packets 300000"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

now() { date +%s.%N; }
hash_dir() { (cd "$1" && md5sum -- * | md5sum | cut -c1-12); }

t0=$(now)
# shellcheck disable=SC2086
/usr/bin/time -f "RSS %M" "$H" simulate --topo $T $ARGS -o "$W/seq" > "$W/seq.out" 2> "$W/seq.err"
t1=$(now)
seq_w=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')
# the run's own time, as the command reports it (the run and, in parallel,
# the windows' exchanges and the gathering of results at rank 0)
runtime() { sed -n 's/^simulated .* packet hops in \([0-9.e+-]*\) s.*/\1/p' "$1"; }
seq_s=$(runtime "$W/seq.out")
seq_rss=$(sed -n 's/^RSS //p' "$W/seq.err")
events=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$W/seq/manifest.json")
h0=$(hash_dir "$W/seq")
rows=""
for np in 1 2; do
    t0=$(now)
    # shellcheck disable=SC2086
    mpirun --oversubscribe -np $np /usr/bin/time -f "RSS %M" "$P" simulate --topo $T $ARGS \
        -o "$W/p$np" > "$W/p$np.out" 2> "$W/p$np.err" < /dev/null
    t1=$(now)
    w=$(echo "$t1 $t0" | awk '{ printf "%.2f", $1 - $2 }')
    s=$(runtime "$W/p$np.out")
    rss=$(sed -n 's/^RSS //p' "$W/p$np.err" | sort -n | tail -1)
    same=$([ "$(hash_dir "$W/p$np")" = "$h0" ] && echo identical || echo DIFFERENT)
    rows="$rows| hopscope-par, $np process$([ $np -gt 1 ] && echo es) | $s s | $w s | $(echo "$seq_s $s" | awk '{ printf "%.2f", $1 / $2 }')x | $(echo "$events $s $np" | awk '{ printf "%.2f", $1 / $2 / $3 / 1e6 }') M | $((rss / 1024)) MB | $same |
"
done
{
    echo "16512 nodes, 2064 switches; uniform traffic at 0.5 of injection bandwidth, 300000"
    echo "messages of 4 KiB (\`--packets\`), $events events.  Run time as the command reports"
    echo "it (the run, the windows' exchanges, the gathering of results at rank 0; the"
    echo "speed-up and events/s are from it); wall time of the whole command beside it"
    echo "(with mpirun, MPI_Init and the run directory); memory is the peak RSS of the"
    echo "largest process (every process holds the whole network's arrays)."
    echo "Load average when measured: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores."
    echo
    echo "| run | run time | wall time | speed-up | events/s per process | peak RSS per process | run directory |"
    echo "|---|---|---|---|---|---|---|"
    echo "| hopscope (baseline) | $seq_s s | $seq_w s | 1x | $(echo "$events $seq_s" | awk '{ printf "%.2f", $1 / $2 / 1e6 }') M | $((seq_rss / 1024)) MB | - |"
    printf '%s' "$rows"
    echo
    if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v n="$(nproc)" 'BEGIN { exit !(l > n) }'; then
        echo "The machine had more runnable processes than cores: the two processes did not run"
        echo "at the same time, and every window's collectives waited for both to be scheduled."
        echo "These figures are the overhead of the parallel run on a busy machine, not its"
        echo "speed-up; measure on idle cores."
        echo
    fi
    echo "Target: >= 1.7x with 2 processes.  Command: \`mpirun -np 2 hopscope-par simulate"
    echo "--topo $T $ARGS -o RUN\`."
} > "$OUT"
