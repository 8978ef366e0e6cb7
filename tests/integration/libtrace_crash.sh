#!/bin/sh
# Crash safety: a run killed with SIGKILL mid-way leaves a readable prefix
# and the reader says exactly what is missing; SIGTERM, exit() without
# MPI_Finalize and MPI_Abort each leave a complete trace whose end record
# names the cause, with every event before it.
. tests/integration/lib.sh
. tests/integration/libtrace.inc

# Starts a recorded `lifecycle` run in the background; waits for its
# manifest (rank 0 writes it at the end of MPI_Init).
start_bg() { # name mpi np args...
    name=$1 mpi=$2 np=$3
    shift 3
    dir=$T_TMP/$name
    HOPSCOPE_FLUSH_INTERVAL=0.2 timeout 60 "$HOPSCOPE" record -o "$dir" -- \
        $(lt_launcher $mpi) -np $np "$LT_BUILD/tests/mpi/$mpi/lifecycle" "$@" \
        >"$dir.out" 2>"$dir.err" &
    bg=$!
    i=0
    while [ ! -f "$dir/manifest.txt" ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
}
rank_pids() { awk '$1 == "rank" {print $4}' "$T_TMP/$1/manifest.txt"; }

for m in $(lt_mpis); do
    # SIGKILL: nothing can be flushed at the end; what was flushed stays.
    tn=kill-$m
    start_bg $tn $m 3 loop 0 2000
    # Kill once every rank has flushed 100 iterations (2 ms each, flushed at
    # least every 0.2 s): about 1.5 s on an idle machine, longer when it is
    # loaded; a fixed sleep made the test depend on the load.
    i=0
    while [ $i -lt 100 ]; do
        sleep 0.3
        "$HOPSCOPE" trace dump --kind sendrecv "$T_TMP/$tn" 2>/dev/null |
            awk '{ split($1, a, "."); n[a[1]]++ } END { exit !(n[0] >= 100 && n[1] >= 100 && n[2] >= 100) }' && break
        i=$((i + 1))
    done
    kill -KILL $(rank_pids $tn) 2>/dev/null
    wait $bg
    "$HOPSCOPE" trace stats "$T_TMP/$tn" >"$T_TMP/$tn.stats" 2>&1
    t_check "$tn: stats of a killed run succeed" test $? -eq 0
    t_grep "$tn: says the ranks have no end record" \
        "rank [0-2]: no end record: the rank was killed.*complete event blocks with [0-9]+ events are readable" "$T_TMP/$tn.stats"
    t_grep "$tn: record summary says incomplete" "INCOMPLETE" "$T_TMP/$tn.out"
    "$HOPSCOPE" trace dump --kind sendrecv "$T_TMP/$tn" >"$T_TMP/$tn.dump" 2>&1
    t_check "$tn: dump of a killed run succeeds" test $? -eq 0
    # what had been flushed before the kill is readable
    for r in 0 1 2; do
        c=$(grep -c "^$r\.0 .* sendrecv" "$T_TMP/$tn.dump")
        if [ "$c" -ge 100 ]; then t_ok "$tn: rank $r prefix has $c sendrecv events"
        else t_fail "$tn: rank $r prefix has >= 100 sendrecv events" "got $c"; fi
    done
    if "$HOPSCOPE" trace check "$T_TMP/$tn" >"$T_TMP/$tn.check" 2>&1; then
        t_fail "$tn: check reports the incomplete files"
    else
        t_grep "$tn: check reports the incomplete files" "rank [0-2]: no end record" "$T_TMP/$tn.check"
    fi

    # SIGTERM to one rank: its handler flushes every buffer and writes an
    # end record before the signal takes its default course.  (The other
    # ranks are then killed by the launcher, which may use SIGKILL: what
    # they keep is their periodically flushed prefix.)
    tn=term-$m
    start_bg $tn $m 3 loop 0 2000
    sleep 1
    kill -TERM $(rank_pids $tn | sed -n 2p) 2>/dev/null
    wait $bg
    "$HOPSCOPE" trace stats "$T_TMP/$tn" >"$T_TMP/$tn.stats" 2>&1
    t_grep "$tn: rank 1 ended by SIGTERM" "rank 1: ended by signal \(code 15\)" "$T_TMP/$tn.stats"
    # Rank 0 prints "iteration N" when it has completed N + 1 sendrecvs (0
    # to N).  Its N-th needs rank 2's N-th message, sent when rank 2 has
    # completed N - 1, for which rank 1's (N-1)-th message was enough: an
    # eager send leaves inside rank 1's (N-1)-th sendrecv, when rank 1 has
    # completed N - 1 of them.  So whenever rank 0 printed N (even just
    # after rank 1 was killed), rank 1 had completed at least N - 1
    # sendrecvs, and every one of them must be in its trace.
    last=$(grep '^iteration' "$T_TMP/$tn.out" | tail -1 | awk '{print $2}')
    "$HOPSCOPE" trace dump --rank 1 --kind sendrecv "$T_TMP/$tn" >"$T_TMP/$tn.dump"
    c=$(grep -c sendrecv "$T_TMP/$tn.dump")
    if [ -n "$last" ] && [ "$c" -ge $((last - 1)) ]; then t_ok "$tn: every iteration before the signal recorded ($c >= $last - 1)"
    else t_fail "$tn: every iteration before the signal recorded" "dumped $c, rank 0 printed iteration $last"; fi

    # exit() without MPI_Finalize: the atexit handler closes the trace.  One
    # rank: with more, the launcher kills the others when the first exits.
    tn=exit-$m
    timeout 60 "$HOPSCOPE" record -o "$T_TMP/$tn" -- $(lt_launcher $m) -np 1 \
        "$LT_BUILD/tests/mpi/$m/lifecycle" exit 50 >"$T_TMP/$tn.out" 2>&1
    "$HOPSCOPE" trace stats --json "$T_TMP/$tn" >"$T_TMP/$tn.json"
    lt_eq $tn "all 50 sendrecvs recorded" 50 "$(lt_calls $tn sendrecv)"
    lt_eq $tn "end record names exit" 1 "$(grep -c '"end": "exit without MPI_Finalize"' "$T_TMP/$tn.json")"

    # MPI_Abort on rank 0: its trace ends with the abort and its code.
    tn=abort-$m
    timeout 60 "$HOPSCOPE" record -o "$T_TMP/$tn" -- $(lt_launcher $m) -np 3 \
        "$LT_BUILD/tests/mpi/$m/lifecycle" abort 20 >"$T_TMP/$tn.out" 2>&1
    "$HOPSCOPE" trace stats "$T_TMP/$tn" >"$T_TMP/$tn.stats" 2>&1
    t_grep "$tn: rank 0 ended by MPI_Abort with code 3" "rank 0: ended by MPI_Abort \(code 3\)" "$T_TMP/$tn.stats"
    "$HOPSCOPE" trace dump --rank 0 "$T_TMP/$tn" >"$T_TMP/$tn.dump" 2>&1
    lt_eq $tn "rank 0: 20 sendrecvs then the abort" "20 1" \
        "$(grep -c ' sendrecv ' "$T_TMP/$tn.dump") $(grep -c ' abort comm=world aux=3' "$T_TMP/$tn.dump")"
done
# A rank that forks a child which exits through exit(): the child must not
# write into the parent's trace (it inherits the descriptor and buffers).
for m in $(lt_mpis); do
    lt_run fork-$m $m 2 forker && lt_eq fork-$m "barriers and digest reduce, nothing from the child" \
        "4 2" "$(lt_calls fork-$m barrier) $(lt_calls fork-$m reduce)"
done

# Disk full: recording stops with one warning per rank, the application
# runs to its normal end with its normal output, the prefix is readable.
m=$(lt_mpis | head -1)
tn=full-$m
mkdir -p "$T_TMP/small"
trap 'umount "$T_TMP/small" 2>/dev/null; rm -rf "$T_TMP"' EXIT
if mount -t tmpfs -o size=96k tmpfs "$T_TMP/small" 2>"$T_TMP/mount.err"; then
    "$HOPSCOPE" record -o "$T_TMP/small/tr" -- $(lt_launcher $m) -np 2 \
        "$LT_BUILD/tests/mpi/$m/ring" 40000 64 >"$T_TMP/$tn.out" 2>"$T_TMP/$tn.err"
    t_eq "$tn: application exits 0" 0 $?
    $(lt_launcher $m) -np 2 "$LT_BUILD/tests/mpi/$m/ring" 40000 64 >"$T_TMP/$tn.plain" 2>/dev/null
    lt_eq $tn "application output unchanged" "$(cat "$T_TMP/$tn.plain")" \
        "$(grep -v '^hopscope: ' "$T_TMP/$tn.out")"
    lt_eq $tn "one warning per rank" 2 "$(grep -c 'recording stopped (No space left on device)' "$T_TMP/$tn.err")"
    "$HOPSCOPE" trace stats "$T_TMP/small/tr" >"$T_TMP/$tn.stats" 2>&1
    t_eq "$tn: the prefix is readable" 0 $?
    t_grep "$tn: and says what is missing" "could not write the rest \(disk full\?\)" "$T_TMP/$tn.stats"
    umount "$T_TMP/small"
else
    t_fail "$tn: mount a 96 KiB tmpfs (the tests run as root)" "$(cat "$T_TMP/mount.err")"
fi
[ "$t_failed" -eq 0 ]
