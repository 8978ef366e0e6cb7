#!/bin/sh
# Traces recorded from real runs under Open MPI and MPICH (the libtrace
# test programs: send modes, wildcards, probes, every completion call,
# persistent requests, collectives, one-sided epochs, communicators,
# threads) replay with every message matched and nothing left over, and
# the replay moves exactly the point-to-point messages the trace recorded,
# tag by tag.
. tests/integration/lib.sh
. tests/integration/libtrace.inc
. tests/integration/replay.inc

TOPO=fattree:k=4,n=2

rec() { # NAME MPI NP PROG ARGS...
    name=$1 mpi=$2 np=$3 prog=$4
    shift 4
    if ! timeout 120 "$HOPSCOPE" record -o "$T_TMP/$name" -- $(lt_launcher "$mpi") -np "$np" \
            "$BUILD/tests/mpi/$mpi/$prog" "$@" > "$T_TMP/$name.out" 2>&1; then
        t_fail "$name: recorded" "$(tail -3 "$T_TMP/$name.out")"
        return 1
    fi
    "$HOPSCOPE" trace stats --matrix 0 "$T_TMP/$name" > "$T_TMP/$name.txt" 2>/dev/null
    return 0
}

replay_ok() { # NAME [simulate options]
    name=$1
    shift
    timeout 120 "$HOPSCOPE" simulate --topo $TOPO -i "$T_TMP/$name" --quiet -o "$T_TMP/$name.run" "$@" \
        > "$T_TMP/$name.sim" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && [ "$(rp_field "$T_TMP/$name.run" status)" = ok ]; then
        t_ok "$name: replays cleanly"
    else
        t_fail "$name: replays cleanly" "exit $rc" "$(head -8 "$T_TMP/$name.sim")"
    fi
    t_eq "$name: nothing left over (unmatched sends, receives, unresolved wildcards)" "0 0 0" \
        "$(rp_field "$T_TMP/$name.run" unmatched_sends) $(rp_field "$T_TMP/$name.run" unmatched_recvs) $(rp_field "$T_TMP/$name.run" unresolved_wildcards)"
}

tags_match() { # NAME TAG...
    name=$1
    shift
    for tag in "$@"; do
        t_eq "$name: tag $tag messages replayed = recorded" "$(lt_tag "$name" "$tag")" \
            "$(rp_phase "$T_TMP/$name.run" "tag $tag" messages)"
    done
}

found=0
for m in $(lt_mpis); do
    found=1
    # send modes and ANY_SOURCE receives, barriers, a reduce
    if rec ring-$m $m 4 ring 8 1000; then
        replay_ok ring-$m
        tags_match ring-$m 0 1 2 3
    fi
    # 3D halo: one tag per direction, Waitall; a neighbor_alltoall
    if rec halo-$m $m 8 halo3d 3 8; then
        replay_ok halo-$m
        tags_match halo-$m 100 101 102 103 104 105
        t_eq "halo-$m: neighbor_alltoall decomposed (8 ranks x 6 neighbours)" 48 \
            "$(rp_phase "$T_TMP/halo-$m.run" neighbor messages)"
    fi
    # incast: Probe(ANY_SOURCE, ANY_TAG) and Recv(ANY_SOURCE, ANY_TAG)
    if rec incast-$m $m 4 incast 6 3000; then
        replay_ok incast-$m
        tags_match incast-$m 1 2 3
    fi
    # Waitsome, Testany, Waitany, Testall, Test, Improbe/Mrecv, Mprobe/Imrecv, Iprobe
    if rec nbany-$m $m 4 nbany 256; then
        replay_ok nbany-$m
        tags_match nbany-$m 1000 1001 1002 1003
    fi
    # persistent requests, rendezvous-sized
    if rec persist-$m $m 4 persist 5 40000; then
        replay_ok persist-$m
        tags_match persist-$m 7
    fi
    # every collective (v forms, nonblocking ones completed by Waitall)
    if rec coll-$m $m 4 alltoall 2 4; then
        replay_ok coll-$m
        t_eq "coll-$m: alltoall phase present" alltoall \
            "$(rp_phase "$T_TMP/coll-$m.run" alltoall collective)"
    fi
    # fence, lock_all, flush, rput, PSCW ...
    if rec rma-$m $m 4 rma 3; then
        replay_ok rma-$m
        t_eq "rma-$m: one-sided operations replayed" \
            "$(awk '/^one-sided:/ { print $2 }' "$T_TMP/rma-$m.txt")" "$(rp_field "$T_TMP/rma-$m.run" rma_ops)"
    fi
    # communicators from split, dup, cart
    if rec split-$m $m 4 split 2; then
        replay_ok split-$m
    fi
    # MPI_THREAD_MULTIPLE: each thread is its own stream
    if rec threads-$m $m 4 threads 2; then
        replay_ok threads-$m
    fi
done
[ $found = 1 ] || t_fail "an MPI with libhopscope.so and the test programs (make tests)"
exit $t_failed
