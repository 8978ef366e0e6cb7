#!/bin/sh
# hopscope trace import smpi on real SimGrid SMPI runs: tests/mpi/ring.c and
# tests/mpi/smpimix.c compiled with smpicc and run by smpirun -trace-ti,
# imported, and compared with the same programs recorded by libhopscope.so
# under Open MPI: point-to-point messages and bytes (total, per pair, and
# for ring per tag) equal exactly, and so do the calls and bytes of every
# world collective.  Skipped when SimGrid (libsimgrid-dev: smpicc, smpirun)
# is absent, as make's HS_HAVE_SIMGRID would say.
. tests/integration/lib.sh
. tests/integration/libtrace.inc

# The command on hand-written files (no SimGrid needed): exit statuses and
# an error naming the file and the line.
mkdir -p "$T_TMP/hand"
printf '0 init\n0 send 1 7 10 6\n0 finalize\n' >"$T_TMP/hand/x_rank-1.txt"
printf '1 init\n1 recv 0 7 10 6\n1 bogus 3\n' >"$T_TMP/hand/x_rank-2.txt"
"$HOPSCOPE" trace import smpi "$T_TMP/hand" -o "$T_TMP/hand.trace" >"$T_TMP/h.out" 2>&1
t_eq "import of a damaged file exits 1" 1 $?
t_grep "the error names file and line" "x_rank-2.txt:3: unknown action 'bogus'" "$T_TMP/h.out"
"$HOPSCOPE" trace import smpi "$T_TMP/hand" >/dev/null 2>&1
t_eq "import without -o is a usage error" 2 $?
"$HOPSCOPE" trace import smpi --skip-unknown "$T_TMP/hand" -o "$T_TMP/hand.trace" >"$T_TMP/h.out" 2>&1
t_eq "--skip-unknown imports it" 0 $?
t_grep "and says what it skipped" "1 unknown actions skipped" "$T_TMP/h.out"
t_grep "one message of 10 B" "^point-to-point: 1 messages sent \(10 B\), 1 received \(10 B\)" \
    "$(  "$HOPSCOPE" trace stats "$T_TMP/hand.trace" >"$T_TMP/h.stats"; echo "$T_TMP/h.stats")"
# A valid import that asks for a petabyte (1e15 bytes, the most an SMPI
# count may be; a mutated size gave the fuzzer such traces, issue 11): the
# replay refuses it at once (--max-packets), naming the message, instead of
# simulating for days.
mkdir -p "$T_TMP/huge"
printf '0 init\n0 send 1 7 1000000000000000 6\n0 finalize\n' >"$T_TMP/huge/h_rank-1.txt"
printf '1 init\n1 recv 0 7 1000000000000000 6\n1 finalize\n' >"$T_TMP/huge/h_rank-2.txt"
t_check "a petabyte message imports" "$HOPSCOPE" trace import smpi "$T_TMP/huge" -o "$T_TMP/huge.trace"
timeout 60 "$HOPSCOPE" simulate --topo torus:4x4 -i "$T_TMP/huge.trace" --quiet >"$T_TMP/huge.out" 2>&1
t_eq "its replay is refused at once: exit 1" 1 $?
t_grep "the refusal names the message and the limit" \
    "1000000000000000 bytes, 244140625000 packets .*rank 0, event 1, send.*--max-packets 268435456" \
    "$T_TMP/huge.out"

if ! pkg-config --exists simgrid 2>/dev/null || ! command -v smpicc >/dev/null ||
   ! command -v smpirun >/dev/null; then
    echo "ok - skip: SimGrid not installed (apt-get install libsimgrid-dev; make deps)"
    exit 0
fi
S=$T_TMP/smpi
mkdir -p "$S"
# A platform of 16 hosts (smpirun needs one; SimGrid ships none in Debian).
cat >"$S/platform.xml" <<'XML'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-15" speed="1Gf" bw="10GBps" lat="1us"/>
</platform>
XML
seq 0 15 | sed 's/^/node-/' >"$S/hosts"

# smpi_run NAME NP PROG ARGS: compile tests/mpi/PROG.c with smpicc, run it.
smpi_run() {
    name=$1 np=$2 prog=$3
    shift 3
    if ! smpicc -O1 -o "$S/$prog" "tests/mpi/$prog.c" >"$S/$prog.cc" 2>&1; then
        t_fail "$name: smpicc" "$(tail -3 "$S/$prog.cc")"
        return 1
    fi
    # -trace-ti writes DIR/NAME.txt (the index) and DIR/NAME.txt_files/.
    if ! (cd "$S" && timeout 120 smpirun -np "$np" -platform platform.xml -hostfile hosts \
            -trace-ti --cfg=tracing/filename:"$name.txt" --log=root.thresh:warning \
            "./$prog" "$@") >"$S/$name.out" 2>&1; then
        t_fail "$name: smpirun -trace-ti" "$(tail -3 "$S/$name.out")"
        return 1
    fi
    t_check "$name: import" "$HOPSCOPE" trace import smpi "$S/$name.txt" -o "$S/$name.trace"
    t_check "$name: imported trace checks clean" "$HOPSCOPE" trace check "$S/$name.trace"
    "$HOPSCOPE" trace stats --json "$S/$name.trace" >"$T_TMP/$name.json"
    return 0
}

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$T_TMP/$1.json"; }
same() { # WHAT PYEXPR: equal (and not empty) in the recorded and the imported stats
    a=$(j rec "$2" 2>&1) b=$(j imp "$2" 2>&1)
    if [ -z "$a" ]; then t_fail "$1" "nothing to compare"; else t_eq "$1" "$a" "$b"; fi
}
P2P='" ".join(str(d["total"][k]) for k in ("sent_messages","sent_bytes","recv_messages","recv_bytes"))'
PAIRS='" ".join("%d>%d:%d/%d" % (p["src"],p["dst"],p["messages"],p["bytes"]) for p in d["pairs"])'
TAGS='" ".join("%d:%d/%d" % (t["tag"],t["messages"],t["bytes"]) for t in d["tags"])'
COLL='" ".join("%s:%d/%d/%d" % (k["call"],k["calls"],k["bytes_sent"],k["bytes_recv"]) for k in d["calls"] if k["call"] in ("barrier","bcast","reduce","allreduce","alltoall","alltoallv","gather","gatherv","allgather","allgatherv","scatter","scatterv","reduce_scatter","scan"))'

if [ -x "$BUILD/tests/mpi/openmpi/ring" ] && [ -f "$BUILD/lib/openmpi/libhopscope.so" ]; then
    if smpi_run ring-smpi 4 ring 8 1000 && lt_run ring-ompi openmpi 4 ring 8 1000; then
        cp "$T_TMP/ring-ompi.json" "$T_TMP/rec.json"
        cp "$T_TMP/ring-smpi.json" "$T_TMP/imp.json"
        same "ring: messages and bytes sent and received" "$P2P"
        t_eq "ring: 32 messages of 1000 B (ANY_SOURCE receives matched)" "32 32000 32 32000" \
            "$(j imp "$P2P")"
        same "ring: traffic per pair" "$PAIRS"
        same "ring: traffic per tag" "$TAGS"
        same "ring: collectives (barrier, reduce)" "$COLL"
        t_eq "ring: 8 barriers and a reduce per rank" "barrier:32/0/0 reduce:4/32/8" "$(j imp "$COLL")"
    fi
    if smpi_run mix-smpi 4 smpimix 2 && lt_run mix-ompi openmpi 4 smpimix 2; then
        cp "$T_TMP/mix-ompi.json" "$T_TMP/rec.json"
        cp "$T_TMP/mix-smpi.json" "$T_TMP/imp.json"
        same "smpimix: messages and bytes sent and received" "$P2P"
        same "smpimix: traffic per pair" "$PAIRS"
        same "smpimix: calls and bytes of every collective" "$COLL"
        # 2 iterations x (4 ring + 4 sendrecv + 4 waitany ring + 2 from rank 0)
        t_eq "smpimix: 28 messages" 28 "$(j imp 'd["total"]["sent_messages"]')"
        # Sendrecv's tag is not in SMPI's trace: 0 there, 9 recorded.
        t_eq "smpimix: Sendrecv imported with tag 0" "8" \
            "$(j imp 'sum(t["messages"] for t in d["tags"] if t["tag"]==0)')"
        # the same run with every rank in one file (ti-one-file)
        if (cd "$S" && timeout 120 smpirun -np 4 -platform platform.xml -hostfile hosts \
                -trace-ti --cfg=tracing/filename:one.txt --cfg=tracing/smpi/format/ti-one-file:yes \
                --log=root.thresh:warning ./smpimix 2) >"$S/one.out" 2>&1 &&
           "$HOPSCOPE" trace import smpi "$S/one.txt" -o "$S/one.trace" -q; then
            "$HOPSCOPE" trace stats --json "$S/one.trace" >"$T_TMP/one.json"
            t_eq "smpimix: one-file trace gives the same traffic" \
                "$(j imp "$P2P") $(j imp "$PAIRS") $(j imp "$COLL")" \
                "$(j one "$P2P") $(j one "$PAIRS") $(j one "$COLL")"
        else
            t_fail "smpimix: one-file trace" "$(tail -3 "$S/one.out")"
        fi
        # the replay takes the import (wildcards resolved, requests completed)
        t_check "smpimix: the import replays" "$HOPSCOPE" simulate --topo torus:2x2 \
            -i "$S/mix-smpi.trace" -o "$S/mix.run" --quiet
        t_eq "smpimix: replay complete" ok \
            "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["app"]["status"])' \
               "$S/mix.run/manifest.json")"
    fi
else
    echo "ok - skip: no Open MPI build of libhopscope.so / tests/mpi (make tests)"
fi

# Computation: --flops turns flops into time; the same trace at twice the
# rate spans about half the time (compute dominates these runs: >= 0.45).
if [ -f "$S/ring-smpi.txt" ]; then
    "$HOPSCOPE" trace import smpi "$S/ring-smpi.txt" -o "$S/r1" --flops 1000 -q &&
    "$HOPSCOPE" trace import smpi "$S/ring-smpi.txt" -o "$S/r2" --flops 2000 -q
    t1=$("$HOPSCOPE" trace stats --json "$S/r1" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["t_last_ns"]-d["total"]["t_first_ns"])')
    t2=$("$HOPSCOPE" trace stats --json "$S/r2" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["t_last_ns"]-d["total"]["t_first_ns"])')
    t_eq "twice the --flops, half the span (+-1 ns per event)" 1 \
        "$(python3 -c "print(int(abs($t1 - 2 * $t2) <= 200 and $t1 > 0))")"
    # the directory of rank files reads like the index
    "$HOPSCOPE" trace import smpi "$S/ring-smpi.txt_files" -o "$S/r3" -q
    "$HOPSCOPE" trace stats --json "$S/r3" >"$T_TMP/r3.json"
    t_eq "the rank-file directory gives the same trace" "$(j ring-smpi "$P2P")" "$(j r3 "$P2P")"
fi
[ "$t_failed" -eq 0 ]
