#!/bin/sh
# hopscope trace import/export otf2 (issue 16):
#  - a Score-P-shaped archive written with the OTF2 writer API
#    (tests/helpers/otf2_scorep.c) imports to exactly the counts, bytes,
#    tags, peers and times the program wrote, and replays;
#  - export then import gives the same events (trace dump) and the same
#    statistics, on gen traces of every pattern and on traces recorded from
#    real MPI runs (Open MPI), and otf2-print reads every exported archive;
#  - --plain import (what any OTF2 reader sees) keeps the messages, peers and
#    collective bytes of a recorded run;
#  - damaged, truncated, foreign and missing inputs fail with a clear error
#    and exit status 1, never a crash.
. tests/integration/lib.sh
. tests/integration/libtrace.inc
SP=$BUILD/tests/helpers/otf2_scorep
T=$T_TMP

if ! "$SP" "$T/sp" >"$T/sp.out" 2>&1; then
    if grep -q '^skip' "$T/sp.out"; then
        echo "# skip: hopscope built without OTF2 (Debian libotf2-trace-dev); checking the message only"
        "$HOPSCOPE" trace import otf2 "$T/none.otf2" -o "$T/x" >/dev/null 2>"$T/err"
        t_eq "without OTF2: import exits 1" 1 $?
        t_grep "without OTF2: names the package" "libotf2-trace-dev" "$T/err"
        exit $t_failed
    fi
    t_fail "otf2_scorep writes its archive" "$(cat "$T/sp.out")"
    exit 1
fi

# ---- the Score-P-shaped archive --------------------------------------------
"$HOPSCOPE" trace import otf2 "$T/sp/traces.otf2" -o "$T/spt" >"$T/imp.out" 2>&1
t_eq "scorep: import exits 0" 0 $?
t_grep "scorep: 4 ranks, 5 locations, every record read, 68 events" \
    '^imported .*: 4 ranks, 5 threads, 266 OTF2 records -> 68 events' "$T/imp.out"
t_grep "scorep: 21 visits of user regions and MPI_Comm_rank are computation" \
    '^  21 visits of regions that are not MPI calls' "$T/imp.out"
t_check "scorep: trace check clean" "$HOPSCOPE" trace check "$T/spt"
# The archive has Score-P's collective sizes (Allreduce 4 x 8 each way, the
# Bcast root 2 x 100 sent and 100 received); the import converts them to
# what libhopscope records (8 each way; the root 100 sent, the others 100
# received): the 12 Allreduce calls and the 2 Bcast roots.
t_grep "scorep: collective sizes converted, 14 calls" \
    "^  written by Score-P: collective sizes converted to hopscope's counting for 14 calls, 0 of them taken as not in place; 0 left as they are$" \
    "$T/imp.out"
"$HOPSCOPE" trace stats --json "$T/spt" >"$T/spt.json"
"$HOPSCOPE" trace stats --matrix 0 "$T/spt" >"$T/spt.txt"
t_eq "scorep: messages and bytes sent" "14 38912" "$(lt_total spt sent_messages) $(lt_total spt sent_bytes)"
t_eq "scorep: messages and bytes received" "14 38912" "$(lt_total spt recv_messages) $(lt_total spt recv_bytes)"
t_eq "scorep: nothing monitored (OTF2 has no in-band field)" 0 "$(lt_total spt monitored)"
for c in "isend 12 30720 0" "irecv 12 0 0" "waitall 12 0 0" "allreduce 12 96 96" \
         "bcast 4 200 200" "send 2 8192 0" "recv 2 0 0" "comm_create 4 0 0" "init 4 0 0" \
         "finalize 4 0 0"; do
    set -- $c
    t_eq "scorep: $1 calls, bytes sent, received" "$2 $3 $4" \
        "$(lt_calls spt $1) $(lt_calls spt $1 bytes_sent) $(lt_calls spt $1 bytes_recv)"
done
t_eq "scorep: messages with tags 0 1 2 7" "4 4 4 2" \
    "$(lt_tag spt 0) $(lt_tag spt 1) $(lt_tag spt 2) $(lt_tag spt 7)"
# ring r -> r+1 carries 1024*(r+1) bytes 3 times; the split halves (even
# 0,2 and odd 1,3) send local 0 -> local 1: world 0 -> 2 and 1 -> 3.
t_eq "scorep: pairs in world ranks" \
    "0 1 3 3072
0 2 1 4096
1 2 3 6144
1 3 1 4096
2 3 3 9216
3 0 3 12288" "$(lt_pairs spt)"
"$HOPSCOPE" trace dump --rank 2 "$T/spt" >"$T/spt.r2"
t_grep "scorep: 2 GHz ticks after the global offset -> ns (MPI_Init at 1 us, 1 us long)" \
    '^2\.0 0\.000001000 \+1\.000us init$' "$T/spt.r2"
t_grep "scorep: the split communicator in world ranks, parent world" \
    'comm_create comm=0x12 parent=world tag=5 \(split\) members=0,2$' "$T/spt.r2"
t_grep "scorep: bcast root is local 1 of {0,2}: world 2" 'bcast comm=0x12 peer=2 bytes=100$' "$T/spt.r2"
t_grep "scorep: Waitall completes the Isend and the Irecv from rank 1" \
    'waitall \[req=0x2\] \[req=0x1 src=1 tag=0 bytes=2048\]$' "$T/spt.r2"
t_grep "scorep: the Irecv posted for what it matched" \
    'irecv comm=world peer2=1 tag2=0 bytes2=2048 req=0x1$' "$T/spt.r2"
t_grep "scorep: nodes from the system tree" '^node 1 hostB$' "$T/spt/manifest.txt"
t_grep "scorep: ranks 2 and 3 on hostB" '^rank 3 1 ' "$T/spt/manifest.txt"
t_check "scorep: the imported trace replays" \
    "$HOPSCOPE" simulate --topo torus:2x2 -i "$T/spt" -o "$T/sprun" --quiet
# Persistent requests as Score-P records them (nothing at the *_init, an
# MpiIsend / MpiIrecvRequest at each start): twice 4 more messages of 512 B.
"$SP" "$T/spp" persist >/dev/null 2>&1 || t_fail "otf2_scorep persist"
"$HOPSCOPE" trace import otf2 "$T/spp/traces.otf2" -o "$T/sppt" >"$T/spp.out" 2>&1
t_grep "persist: 100 events" '-> 100 events' "$T/spp.out"
t_check "persist: trace check clean" "$HOPSCOPE" trace check "$T/sppt"
"$HOPSCOPE" trace stats --json "$T/sppt" >"$T/sppt.json"
t_eq "persist: the started sends are messages" "22 43008 22 43008" \
    "$(lt_total sppt sent_messages) $(lt_total sppt sent_bytes) $(lt_total sppt recv_messages) $(lt_total sppt recv_bytes)"
t_eq "persist: Startall becomes isend and irecv; inits kept" "20 20 4 4 0" \
    "$(lt_calls sppt isend) $(lt_calls sppt irecv) $(lt_calls sppt send_init) $(lt_calls sppt recv_init) $(lt_calls sppt startall)"
# Collectives with Score-P's sizes (otf2_scorep.c colls()), imported as
# libhopscope records them (docs/formats.md "Collective bytes"), P = 4:
# reduce 16 B to root 0 in place: root 16 / 16 (Score-P 0 / 48), others
# 16 sent; scan and exscan 8 B: 8 each way on every rank (Score-P (P-r) x 8
# and (r+1) x 8, (P-r-1) x 8 and r x 8); gather 64 B to root 2: the same
# in both; allgather 40 B: 40 sent, 160 received (Score-P 160 each way);
# scatter 24 B from root 1 in place: root 96 sent (Score-P 72), others 24
# received.
"$SP" "$T/spc" colls >/dev/null 2>&1 || t_fail "otf2_scorep colls"
"$HOPSCOPE" trace import otf2 "$T/spc/traces.otf2" -o "$T/spct" >"$T/spc.out" 2>&1
t_grep "colls: 92 events" '-> 92 events' "$T/spc.out"
t_grep "colls: 28 calls converted exactly" \
    "converted to hopscope's counting for 28 calls, 0 of them taken as not in place; 0 left" \
    "$T/spc.out"
t_check "colls: trace check clean" "$HOPSCOPE" trace check "$T/spct"
"$HOPSCOPE" trace stats --json "$T/spct" >"$T/spct.json"
for c in "reduce 4 64 16" "scan 4 32 32" "exscan 4 32 32" "gather 4 256 256" \
         "allgather 4 160 640" "scatter 4 96 72" "allreduce 12 96 96" "bcast 4 200 200"; do
    set -- $c
    t_eq "colls: $1 calls, bytes sent, received" "$2 $3 $4" \
        "$(lt_calls spct $1) $(lt_calls spct $1 bytes_sent) $(lt_calls spct $1 bytes_recv)"
done
"$HOPSCOPE" trace dump --rank 0 --kind reduce "$T/spct" >"$T/spct.r0"
t_grep "colls: the in-place reduce root receives one block" \
    'reduce comm=world peer=0 bytes=16 bytes2=16$' "$T/spct.r0"
"$HOPSCOPE" trace dump --rank 1 --kind scatter "$T/spct" >"$T/spct.r1"
t_grep "colls: the in-place scatter root sends P blocks" \
    'scatter comm=world peer=1 bytes=96$' "$T/spct.r1"
t_check "colls: the imported trace replays" \
    "$HOPSCOPE" simulate --topo torus:2x2 -i "$T/spct" -o "$T/spcrun" --quiet
# --plain on an archive hopscope wrote does not convert: its sizes are
# hopscope's (the round trips below check the counts).

# ---- export -> import: same events ------------------------------------------
# rt NAME TRACE: export, otf2-print, import, compare dump and stats
rt() {
    n=$1 tr=$2
    if ! "$HOPSCOPE" trace export otf2 "$tr" -o "$T/$n.otf2" >"$T/$n.exp" 2>&1; then
        t_fail "$n: export" "$(cat "$T/$n.exp")"
        return 1
    fi
    if command -v otf2-print >/dev/null; then
        otf2-print "$T/$n.otf2/traces.otf2" >"$T/$n.print" 2>"$T/$n.print.err"
        rc=$?
        if [ $rc -eq 0 ] && [ ! -s "$T/$n.print.err" ]; then
            t_ok "$n: otf2-print reads the archive without a warning"
        else
            t_fail "$n: otf2-print reads the archive without a warning" "exit $rc" \
                "$(head -3 "$T/$n.print.err")"
        fi
    fi
    if ! "$HOPSCOPE" trace import otf2 "$T/$n.otf2" -o "$T/$n.back" >"$T/$n.imp" 2>&1; then
        t_fail "$n: import of the export" "$(cat "$T/$n.imp")"
        return 1
    fi
    "$HOPSCOPE" trace dump "$tr" >"$T/$n.d1"
    "$HOPSCOPE" trace dump "$T/$n.back" >"$T/$n.d2"
    if cmp -s "$T/$n.d1" "$T/$n.d2"; then
        t_ok "$n: export+import gives the same $(wc -l <"$T/$n.d1") events"
    else
        t_fail "$n: export+import gives the same events" "$(diff "$T/$n.d1" "$T/$n.d2" | head -6)"
    fi
    "$HOPSCOPE" trace stats "$tr" | tail -n +2 >"$T/$n.s1"
    "$HOPSCOPE" trace stats "$T/$n.back" | tail -n +2 >"$T/$n.s2"
    if cmp -s "$T/$n.s1" "$T/$n.s2"; then
        t_ok "$n: identical trace stats"
    else
        t_fail "$n: identical trace stats" "$(diff "$T/$n.s1" "$T/$n.s2" | head -6)"
    fi
}

rt scorep "$T/spt"
for p in halo3d pf3d canary incast pingpong; do
    "$HOPSCOPE" gen $p --ranks 8 --iters 2 --size 4K -o "$T/gen-$p" --quiet
    rt gen-$p "$T/gen-$p"
done

# Recorded under Open MPI: the programs of the libtrace tests (ANY_SOURCE,
# probes and nonblocking collectives, communicator splits, RMA, persistent
# requests, threads).
M=$BUILD/tests/mpi/openmpi
if [ -x "$M/ring" ] && [ -f "$BUILD/lib/openmpi/libhopscope.so" ]; then
    rec() {
        n=$1 np=$2
        shift 2
        if timeout 120 "$HOPSCOPE" record -o "$T/$n" -- $MPIRUN_OMPI -np "$np" "$M/$@" \
                >"$T/$n.rec" 2>&1; then
            rt "rec-$n" "$T/$n"
        else
            t_fail "record $n" "$(tail -3 "$T/$n.rec")"
        fi
    }
    rec ring 4 ring 8 1000
    rec nbany 4 nbany 1000
    rec split 8 split 3 1000
    rec rma 4 rma 3
    rec persist 4 persist 3 1000
    rec threads 2 threads
    # What any OTF2 reader gets (no hopscope:: attributes): the same
    # messages, pairs and collectives; only the in-band monitoring is lost.
    if [ -d "$T/rec-ring.otf2" ]; then
        "$HOPSCOPE" trace import otf2 --plain "$T/rec-ring.otf2" -o "$T/ring.plain" >/dev/null
        "$HOPSCOPE" trace stats "$T/ring.plain" | tail -n +2 >"$T/ring.s3"
        t_eq "plain import of the recorded ring: only 'monitored' differs" \
            "< point-to-point: 32 messages sent (31.2 KiB), 32 received (31.2 KiB), 32 monitored
---
> point-to-point: 32 messages sent (31.2 KiB), 32 received (31.2 KiB), 0 monitored" \
            "$(diff "$T/rec-ring.s1" "$T/ring.s3" | tail -n +2)"
    fi
    if [ -d "$T/rec-rma.otf2" ]; then
        "$HOPSCOPE" trace import otf2 --plain "$T/rec-rma.otf2" -o "$T/rma.plain" >/dev/null
        "$HOPSCOPE" trace stats "$T/rma.plain" | tail -n +2 >"$T/rma.s3"
        t_check "plain import of the recorded RMA run: identical stats" cmp "$T/rec-rma.s1" "$T/rma.s3"
    fi
else
    echo "# skip: no Open MPI test programs or interposer built: recorded round trips not run"
fi

# ---- bad inputs: exit 1, a clear message, no crash ---------------------------
# bad NAME PATTERN ARGS...: import fails with exit 1 and the message
bad() {
    n=$1 pat=$2
    shift 2
    rm -rf "$T/bad.out"
    "$HOPSCOPE" trace import otf2 "$@" -o "$T/bad.out" >"$T/bad.stdout" 2>"$T/bad.err"
    rc=$?
    if [ $rc -eq 1 ] && grep -qE -- "$pat" "$T/bad.err"; then
        t_ok "bad input: $n"
    else
        t_fail "bad input: $n" "exit $rc (want 1), stderr: $(head -3 "$T/bad.err")" "want /$pat/"
    fi
}
for v in bad-peer no-mpi bad-group no-clock cut; do
    "$SP" "$T/v-$v" $v >/dev/null 2>&1 || t_fail "otf2_scorep $v"
done
bad "send to a rank the communicator lacks" \
    'rank 1 thread 0: MpiIsend at tick [0-9]+: rank 9 is not in communicator 0 \(4 ranks\)' \
    "$T/v-bad-peer/traces.otf2"
bad "no MPI ranks" 'no MPI ranks .*not a trace of an MPI program' "$T/v-no-mpi/traces.otf2"
bad "group member beyond the ranks" 'group 4: member 6 is not an MPI rank \(4 ranks\)' \
    "$T/v-bad-group/traces.otf2"
bad "no clock" 'no clock properties' "$T/v-no-clock/traces.otf2"
bad "missing archive" 'nothere.otf2: No such file or directory' "$T/nothere.otf2"
: >"$T/empty.otf2"
bad "empty anchor file" 'too short for an OTF2 anchor file' "$T/empty.otf2"
head -c 4096 /dev/urandom >"$T/garbage.otf2"
bad "garbage anchor file" 'not a readable OTF2 archive' "$T/garbage.otf2"
cp -r "$T/sp" "$T/cut-anchor" && head -c 50 "$T/sp/traces.otf2" >"$T/cut-anchor/traces.otf2"
bad "truncated anchor file" 'not a readable OTF2 archive' "$T/cut-anchor/traces.otf2"
cp -r "$T/sp" "$T/cut-def" && head -c 400 "$T/sp/traces.def" >"$T/cut-def/traces.def"
bad "truncated definitions" 'reading the global definitions: .*failed' "$T/cut-def/traces.otf2"
cp -r "$T/sp" "$T/cut-evt" && head -c 200 "$T/sp/traces/1.evt" >"$T/cut-evt/traces/1.evt"
bad "truncated event file" 'rank 1 thread 0: reading events: ' "$T/cut-evt/traces.otf2"
cp -r "$T/sp" "$T/no-evt" && rm "$T/no-evt/traces/2.evt"
bad "missing event file" 'rank 2: no events of location 2' "$T/no-evt/traces.otf2"
# The anchor's major version (byte 9): the library opens a later one silently.
cp -r "$T/sp" "$T/v99" && printf '\143' | dd of="$T/v99/traces.otf2" bs=1 seek=9 conv=notrunc 2>/dev/null
bad "later OTF2 version" 'written by OTF2 99\.0\.2; .* reads archives up to version 3\.x' \
    "$T/v99/traces.otf2"
bad "a directory without an archive" 'No such file or directory' "$T"
# A call entered and never left (a killed run): the rest is imported.
"$HOPSCOPE" trace import otf2 "$T/v-cut/traces.otf2" -o "$T/cut.t" >"$T/cut.out" 2>&1
t_eq "cut archive: imported" 0 $?
t_grep "cut archive: says what it left out" '1 calls entered and never left' "$T/cut.out"
t_grep "cut archive: 67 events" '-> 67 events' "$T/cut.out"
# usage errors
"$HOPSCOPE" trace import nosuch x -o y >/dev/null 2>"$T/u.err"
t_eq "unknown format: usage error" 2 $?
t_grep "unknown format: says so" "unknown import format 'nosuch'" "$T/u.err"
"$HOPSCOPE" trace import otf2 "$T/sp/traces.otf2" >/dev/null 2>&1
t_eq "import without -o: usage error" 2 $?
"$HOPSCOPE" trace export otf2 "$T/spt" -o "$T/scorep.otf2" >/dev/null 2>"$T/ex.err"
t_eq "export over an existing archive: refused" 1 $?
t_grep "export over an existing archive: says so" 'traces.otf2 exists' "$T/ex.err"
"$HOPSCOPE" trace export otf2 "$T/nothere" -o "$T/x.otf2" >/dev/null 2>"$T/ex2.err"
t_eq "export of a missing trace: exit 1" 1 $?
"$HOPSCOPE" trace --help >"$T/help" 2>&1
t_grep "help: import listed" '^  import otf2  ' "$T/help"
t_grep "help: export listed" '^  export otf2  ' "$T/help"
"$HOPSCOPE" trace import otf2 --help >"$T/help" 2>&1
t_grep "help: import documented" '^usage: hopscope trace import otf2 \[--plain\] ARCHIVE -o DIR$' "$T/help"
t_grep "help: import's --plain" '^  --plain ' "$T/help"
"$HOPSCOPE" trace export otf2 --help >"$T/help" 2>&1
t_grep "help: export documented" '^usage: hopscope trace export otf2 DIR -o ARCHIVE$' "$T/help"
exit $t_failed
