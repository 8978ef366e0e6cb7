#!/bin/sh
# The MPI replay over MPI processes (issue 15; docs/fabric.md, "Parallel
# runs"): `mpirun -np N hopscope-par simulate -i TRACE` writes run
# directories byte-identical to `hopscope simulate -i TRACE` with 1, 2 and 3
# processes under Open MPI and MPICH, on a fat-tree, a dragonfly (UGAL, a
# random mapping, two ranks per node) and a torus (shared-memory legs, a
# shifted mapping, a collective); a replay whose messages all cross the
# partition; a trace recorded under Open MPI with wildcard receives; a
# killed process stops the run with an error and no run directory; what a
# parallel replay refuses (background jobs, RMA); a deadlocked replay and
# one over --max-packets.
. tests/integration/lib.sh

hash_dir() { (cd "$1" 2>/dev/null && md5sum -- * | md5sum | cut -c1-32); }

"$HOPSCOPE" gen halo3d --ranks 8 --iters 1 --size 8K -o "$T_TMP/halo" > /dev/null
"$HOPSCOPE" gen pf3d --ranks 16 --iters 1 -o "$T_TMP/pf3d" > /dev/null
"$HOPSCOPE" gen canary --ranks 16 --iters 1 -o "$T_TMP/canary" > /dev/null
# Ping-pong pairs (2i, 2i+1), rank 2i on node i and rank 2i+1 on node 8+i of
# a 4x4 torus: two parts of 8 equally loaded nodes each (slabs of the
# slowest dimension), so every message crosses between them.
"$HOPSCOPE" gen pingpong --ranks 16 --iters 3 --size 20K -o "$T_TMP/pp" > /dev/null
: > "$T_TMP/cross.map"
for i in 0 1 2 3 4 5 6 7; do
    echo "$((2 * i)) $i" >> "$T_TMP/cross.map"
    echo "$((2 * i + 1)) $((8 + i))" >> "$T_TMP/cross.map"
done

# name|trace|topology|options
CASES="fattree|halo|fattree:k=4,n=2|
dragonfly|pf3d|dragonfly:a=4,p=2,h=2,routing=ugal|--ppn 2 --map random
torus|canary|torus:4x4|--ppn 2 --map shift:5
all-cross|pp|torus:4x4|--map file:$T_TMP/cross.map"

echo "$CASES" | while IFS='|' read -r name tr topo opts; do
    rm -rf "$T_TMP/run"
    # shellcheck disable=SC2086
    "$HOPSCOPE" simulate -i "$T_TMP/$tr" --topo "$topo" $opts --quiet -o "$T_TMP/run" \
        > /dev/null 2>&1 < /dev/null
    echo "$name $(hash_dir "$T_TMP/run")"
    mv "$T_TMP/run" "$T_TMP/seq-$name"
done > "$T_TMP/seq.hashes"
t_eq "sequential replays wrote their run directories" 4 \
    "$(grep -c ' [0-9a-f]\{32\}$' "$T_TMP/seq.hashes")"
t_grep "the all-cross replay: every message crosses the network" '"messages": 48' \
    "$T_TMP/seq-all-cross/app.json"

for mpi in openmpi mpich; do
    PAR="$BUILD/bin/$mpi/hopscope-par"
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    if [ ! -x "$PAR" ]; then
        t_fail "hopscope-par built for $mpi" "missing $PAR"
        continue
    fi
    echo "$CASES" | while IFS='|' read -r name tr topo opts; do
        want=$(sed -n "s/^$name //p" "$T_TMP/seq.hashes")
        got=""
        nps="1 2 3"
        [ "$name" = all-cross ] && nps="2"
        for np in $nps; do
            # the same run directory name: app.json records the command line
            rm -rf "$T_TMP/run"
            # shellcheck disable=SC2086
            timeout 120 $RUN -np $np "$PAR" simulate -i "$T_TMP/$tr" --topo "$topo" $opts \
                --quiet -o "$T_TMP/run" > "$T_TMP/p.log" 2>&1 < /dev/null
            h=$(hash_dir "$T_TMP/run")
            [ "$h" = "$want" ] && got="$got $np:same" || got="$got $np:differs"
        done
        exp=" 1:same 2:same 3:same"
        [ "$name" = all-cross ] && exp=" 2:same"
        t_eq "$mpi: replay $name, run directory identical to hopscope's" "$exp" "$got"
    done
done

# The all-cross replay with --par-stats: every packet crosses the cut once
# (a torus path from row y to row y+2 crosses one of the two cuts) and its
# buffer's credit comes back across it: events sent over both parts = 2 x
# the packets injected; and the network's files are still hopscope's.
PAR="$BUILD/bin/openmpi/hopscope-par"
if [ -x "$PAR" ]; then
    rm -rf "$T_TMP/run"
    timeout 120 $MPIRUN_OMPI -np 2 "$PAR" simulate -i "$T_TMP/pp" --topo torus:4x4 \
        --map "file:$T_TMP/cross.map" --par-stats --quiet -o "$T_TMP/run" \
        > "$T_TMP/ps.log" 2>&1 < /dev/null
    pk=$(sed -n 's/.*"packets_injected": \([0-9]*\).*/\1/p' "$T_TMP/run/manifest.json")
    t_eq "all-cross: events sent between the parts = 2 x packets ($pk)" "$((2 * ${pk:-0}))" \
        "$(awk '/^par-stats part/ { for (i = 1; i < NF; i++) if ($i == "sent") s += $(i+1) }
                END { print s + 0 }' "$T_TMP/ps.log")"
    # (app.json records the command line, which now has --par-stats)
    t_eq "all-cross with --par-stats: the network's files still hopscope's" \
        "$(cd "$T_TMP/seq-all-cross" && md5sum -- $(ls | grep -v '^app.json$') | md5sum)" \
        "$(cd "$T_TMP/run" && md5sum -- $(ls | grep -v '^app.json$') | md5sum)"
fi

# Kill one process of a long replay: the run fails and leaves no run
# directory (nor its RUN.part-PID).
"$HOPSCOPE" gen halo3d --ranks 16 --iters 100000 --size 4K --compute 1us \
    -o "$T_TMP/long" > /dev/null
for mpi in openmpi mpich; do
    PAR="$BUILD/bin/$mpi/hopscope-par"
    [ -x "$PAR" ] || continue
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    rm -rf "$T_TMP/killed"*
    timeout 120 $RUN -np 2 "$PAR" simulate -i "$T_TMP/long" --topo torus:4x4 --max-packets 0 \
        --quiet -o "$T_TMP/killed" > "$T_TMP/k.log" 2>&1 < /dev/null &
    launcher=$!
    v=$(kill_one_rank $launcher)
    wait $launcher
    rc=$?
    t_eq "$mpi: a killed process stops the replay with an error" "failed" \
        "$([ -n "$v" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo failed || echo "rc=$rc victim=$v")"
    t_eq "$mpi: and leaves no run directory" "" "$(ls -d "$T_TMP"/killed* 2>/dev/null)"
done

PAR="$BUILD/bin/openmpi/hopscope-par"
if [ -x "$PAR" ]; then
    $MPIRUN_OMPI -np 2 "$PAR" simulate -i "$T_TMP/halo" --topo fattree:k=4,n=2 \
        --background incast -o "$T_TMP/bg" > "$T_TMP/r1" 2>&1 < /dev/null
    t_eq "a replay with background jobs is refused in parallel (usage error)" 2 $?
    t_grep "the refusal names the background" 'background jobs' "$T_TMP/r1"
    t_eq "and leaves no run directory" "" "$(ls -d "$T_TMP"/bg* 2>/dev/null)"
    # a rank that recorded nothing: its neighbours wait for ever.  At
    # global idle the parallel run finds the deadlock as the sequential one
    # does: exit 1, the same run directory (status deadlock, the leftovers'
    # counts), and a report of the blocked ranks with the leftovers' counts
    cp -r "$T_TMP/halo" "$T_TMP/dead"
    head -c 64 "$T_TMP/halo/rank-000005.hst" > "$T_TMP/dead/rank-000005.hst"
    timeout 60 "$HOPSCOPE" simulate -i "$T_TMP/dead" --topo fattree:k=4,n=2 --quiet \
        -o "$T_TMP/rd" > /dev/null 2>&1 < /dev/null
    t_eq "deadlock: the sequential replay exits 1" 1 $?
    want=$(hash_dir "$T_TMP/rd")
    for np in 2 3; do
        rm -rf "$T_TMP/rd"
        timeout 60 $MPIRUN_OMPI -np $np "$PAR" simulate -i "$T_TMP/dead" --topo fattree:k=4,n=2 \
            --quiet -o "$T_TMP/rd" > "$T_TMP/r2" 2>&1 < /dev/null
        t_eq "deadlock, $np processes: exit 1" 1 $?
        t_eq "deadlock, $np processes: run directory identical to hopscope's" "$want" \
            "$(hash_dir "$T_TMP/rd")"
    done
    t_grep "deadlock: the report names the blocked ranks" \
        '^deadlock at .*: 3 of 8 application ranks/threads cannot go on' "$T_TMP/r2"
    t_grep "deadlock: and the leftovers' counts" \
        '6 messages never received, 6 receives never matched' "$T_TMP/r2"
    # --max-packets 64 on a canary whose allreduce brings its 48 estimated
    # packets to 96: the sequential replay stops; with 3 processes each
    # stays under 64, and the run still fails (part 0 checks the sum)
    "$HOPSCOPE" gen canary --ranks 16 --iters 1 -o "$T_TMP/can1" > /dev/null
    "$HOPSCOPE" simulate -i "$T_TMP/can1" --topo torus:4x4 --max-packets 64 --quiet \
        -o "$T_TMP/mp-seq" > /dev/null 2>&1 < /dev/null
    t_eq "max-packets: the sequential replay stops (exit 1)" 1 $?
    timeout 60 $MPIRUN_OMPI -np 3 "$PAR" simulate -i "$T_TMP/can1" --topo torus:4x4 \
        --max-packets 64 --quiet -o "$T_TMP/mp" > "$T_TMP/r4" 2>&1 < /dev/null
    t_eq "max-packets: so does the parallel one, 3 processes (exit 1)" 1 $?
    t_grep "max-packets: it names the sum" 'sent 96 packets, more than --max-packets 64' "$T_TMP/r4"
    t_eq "max-packets: and leaves no run directory" "" "$(ls -d "$T_TMP"/mp "$T_TMP"/mp.part* 2>/dev/null)"
    # Recorded under Open MPI: wildcard receives (nbany) replay identically
    # with 2 and 3 processes; one-sided communication is refused.
    for prog in "nbany 256" "rma 3"; do
        set -- $prog
        rm -rf "$T_TMP/rec-$1"
        timeout 120 "$HOPSCOPE" record -o "$T_TMP/rec-$1" -- $MPIRUN_OMPI -np 4 \
            "$BUILD/tests/mpi/openmpi/$1" "$2" > "$T_TMP/rec-$1.out" 2>&1 < /dev/null ||
            t_fail "recorded $1 under Open MPI" "$(tail -3 "$T_TMP/rec-$1.out")"
    done
    rm -rf "$T_TMP/run"
    "$HOPSCOPE" simulate -i "$T_TMP/rec-nbany" --topo fattree:k=4,n=2 --quiet -o "$T_TMP/run" \
        > /dev/null 2>&1 < /dev/null
    want=$(hash_dir "$T_TMP/run")
    got=""
    for np in 2 3; do
        rm -rf "$T_TMP/run"
        timeout 120 $MPIRUN_OMPI -np $np "$PAR" simulate -i "$T_TMP/rec-nbany" \
            --topo fattree:k=4,n=2 --quiet -o "$T_TMP/run" > /dev/null 2>&1 < /dev/null
        [ "$(hash_dir "$T_TMP/run")" = "$want" ] && got="$got $np:same" || got="$got $np:differs"
    done
    t_eq "recorded wildcard receives (nbany): run directory identical to hopscope's" \
        " 2:same 3:same" "$got"
    timeout 60 $MPIRUN_OMPI -np 2 "$PAR" simulate -i "$T_TMP/rec-rma" --topo fattree:k=4,n=2 \
        -o "$T_TMP/rma" > "$T_TMP/r3" 2>&1 < /dev/null
    t_eq "a replay with one-sided communication is refused in parallel (usage error)" 2 $?
    t_grep "the refusal names RMA" 'one-sided communication' "$T_TMP/r3"
    t_eq "and leaves no run directory" "" "$(ls -d "$T_TMP"/rma* 2>/dev/null)"
fi
exit $t_failed
