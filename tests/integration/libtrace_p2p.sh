#!/bin/sh
# libhopscope.so on point-to-point programs of known communication, under
# Open MPI and MPICH: the trace statistics equal the counts, bytes, tags and
# peers computed here from the programs' parameters, sends match receives,
# and the programs print the same with and without the library.
. tests/integration/lib.sh
. tests/integration/libtrace.inc

for m in $(lt_mpis); do
    # ring ITERS BYTES: send modes i%4, tag i%4, receives by ANY_SOURCE.
    P=4 IT=8 B=1000
    if lt_run ring-$m $m $P ring $IT $B; then
        n=ring-$m
        lt_eq $n "messages sent" $((P * IT)) "$(lt_total $n sent_messages)"
        lt_eq $n "bytes sent" $((P * IT * B)) "$(lt_total $n sent_bytes)"
        lt_eq $n "messages received" $((P * IT)) "$(lt_total $n recv_messages)"
        lt_eq $n "bytes received" $((P * IT * B)) "$(lt_total $n recv_bytes)"
        lt_eq $n "monitored (default rate 1)" $((P * IT)) "$(lt_total $n monitored)"
        for mode in send ssend bsend rsend; do
            lt_eq $n "$mode calls" $((P * IT / 4)) "$(lt_calls $n $mode)"
        done
        lt_eq $n "irecv calls" $((P * IT)) "$(lt_calls $n irecv)"
        lt_eq $n "wait calls" $((P * IT)) "$(lt_calls $n wait)"
        lt_eq $n "barrier calls" $((P * IT)) "$(lt_calls $n barrier)"
        lt_eq $n "init / finalize" "$P $P" "$(lt_calls $n init) $(lt_calls $n finalize)"
        for tag in 0 1 2 3; do
            lt_eq $n "tag $tag messages" $((P * IT / 4)) "$(lt_tag $n $tag)"
        done
        want=$(for r in $(seq 0 $((P - 1))); do echo "$r $(((r + 1) % P)) $IT $((IT * B))"; done)
        lt_eq $n "pairs r -> r+1" "$want" "$(lt_pairs $n)"
        # ANY_SOURCE resolved from the status: rank 1's waits all name rank 0.
        "$HOPSCOPE" trace dump --rank 1 --kind wait "$T_TMP/$n" >"$T_TMP/$n.waits"
        lt_eq $n "rank 1 completions matched to source 0" $IT \
            "$(grep -c 'src=0 tag=[0-3] bytes=1000\]' "$T_TMP/$n.waits")"
    fi

    # halo3d ITERS N on 8 ranks: dims 2x2x2, so each rank has 3 distinct
    # neighbours, each getting 2 faces (one per direction) per iteration.
    P=8 IT=3 N=4
    F=$((N * N * 8))
    if lt_run halo3d-$m $m $P halo3d $IT $N; then
        n=halo3d-$m
        lt_eq $n "messages" $((6 * P * IT)) "$(lt_total $n sent_messages)"
        lt_eq $n "bytes" $((6 * P * IT * F)) "$(lt_total $n sent_bytes)"
        for d in 0 1 2 3 4 5; do
            lt_eq $n "tag $((100 + d)) messages" $((P * IT)) "$(lt_tag $n $((100 + d)))"
        done
        lt_eq $n "isend / irecv / waitall" "$((6 * P * IT)) $((6 * P * IT)) $((P * IT))" \
            "$(lt_calls $n isend) $(lt_calls $n irecv) $(lt_calls $n waitall)"
        lt_eq $n "pairs" 24 "$(lt_pairs $n | wc -l)"
        lt_eq $n "every pair carries 2 faces per iteration" "$((2 * IT)) $((2 * IT * F))" \
            "$(lt_pairs $n | awk '{print $3, $4}' | sort -u)"
        lt_eq $n "neighbor_alltoall: 6 neighbours x 4 bytes, each way" \
            "$P $((P * 24)) $((P * 24))" \
            "$(lt_calls $n neighbor_alltoall) $(lt_calls $n neighbor_alltoall bytes_sent) $(lt_calls $n neighbor_alltoall bytes_recv)"
    fi

    # incast ITERS BYTES: everyone to rank 0, tag = sender.
    P=4 IT=6 B=3000
    if lt_run incast-$m $m $P incast $IT $B; then
        n=incast-$m
        M=$(((P - 1) * IT))
        lt_eq $n "messages" $M "$(lt_total $n sent_messages)"
        lt_eq $n "received" $M "$(lt_total $n recv_messages)"
        want=$(for r in $(seq 1 $((P - 1))); do echo "$r 0 $IT $((IT * B))"; done)
        lt_eq $n "pairs r -> 0" "$want" "$(lt_pairs $n)"
        for r in $(seq 1 $((P - 1))); do
            lt_eq $n "tag $r messages" $IT "$(lt_tag $n $r)"
        done
        lt_eq $n "probe / recv / isend" "$(((M + 1) / 2)) $M $M" \
            "$(lt_calls $n probe) $(lt_calls $n recv) $(lt_calls $n isend)"
    fi

    # nbany BYTES: 8 rounds, every ordered pair one message per round, tag
    # 1000+sender, received by wildcard through every completion family.
    P=4 B=200
    if lt_run nbany-$m $m $P nbany $B; then
        n=nbany-$m
        M=$((8 * P * (P - 1)))
        lt_eq $n "messages" $M "$(lt_total $n sent_messages)"
        lt_eq $n "received (matched in completions, mrecv, recv)" $M "$(lt_total $n recv_messages)"
        lt_eq $n "pairs" $((P * (P - 1))) "$(lt_pairs $n | wc -l)"
        lt_eq $n "8 messages per pair" "8 $((8 * B))" "$(lt_pairs $n | awk '{print $3, $4}' | sort -u)"
        for r in $(seq 0 $((P - 1))); do
            lt_eq $n "tag $((1000 + r)) messages" $((8 * (P - 1))) "$(lt_tag $n $((1000 + r)))"
        done
        lt_eq $n "mprobe / imrecv / mrecv" "$((P * (P - 1))) $((P * (P - 1))) $((P * (P - 1)))" \
            "$(lt_calls $n mprobe) $(lt_calls $n imrecv) $(lt_calls $n mrecv)"
    fi

    # persist ITERS BYTES: Send_init/Recv_init, Startall+Waitall, Start+Wait.
    P=4 IT=7 B=300
    if lt_run persist-$m $m $P persist $IT $B; then
        n=persist-$m
        lt_eq $n "messages" $((P * (IT + 1))) "$(lt_total $n sent_messages)"
        lt_eq $n "received" $((P * (IT + 1))) "$(lt_total $n recv_messages)"
        lt_eq $n "bytes" $((P * (IT + 1) * B)) "$(lt_total $n sent_bytes)"
        lt_eq $n "send_init recv_init startall start waitall wait request_free" \
            "$P $P $((P * IT)) $((2 * P)) $((P * IT)) $((2 * P)) $((2 * P))" \
            "$(for c in send_init recv_init startall start waitall wait request_free; do printf '%s ' "$(lt_calls $n $c)"; done | sed 's/ $//')"
        want=$(for r in $(seq 0 $((P - 1))); do echo "$r $(((r + 1) % P)) $((IT + 1)) $(((IT + 1) * B))"; done)
        lt_eq $n "pairs r -> r+1" "$want" "$(lt_pairs $n)"
    fi

    # procnull ITERS BYTES: calls with peer MPI_PROC_NULL are no-ops, timed
    # with one clock read (duration 0); real messages with two (> 0).
    P=2 IT=5 B=1000
    if lt_run procnull-$m $m $P procnull $IT $B; then
        n=procnull-$m
        for r in 0 1; do
            "$HOPSCOPE" trace dump --rank $r "$T_TMP/$n"
        done >"$T_TMP/$n.dump"
        lt_eq $n "send/recv/isend/irecv with MPI_PROC_NULL: duration 0" $((P * IT * 5)) \
            "$(grep -Ec ' \+0\.000us (send|recv|isend|irecv) comm=world peer2?=null' "$T_TMP/$n.dump")"
        lt_eq $n "no other duration-0 start of a MPI_PROC_NULL call" 0 \
            "$(grep -E ' (send|recv|isend|irecv) comm=world peer2?=null' "$T_TMP/$n.dump" | grep -Fvc ' +0.000us ')"
        # (Both MPIs return one shared handle for the two isends of the
        # waitall: the request table knows only the second.)
        lt_eq $n "wait(all) on MPI_PROC_NULL isends: duration 0" $((P * IT * 2)) \
            "$(grep -Ec ' \+0\.000us wait(all)? \[req=' "$T_TMP/$n.dump")"
        lt_eq $n "sends and receives of real messages: duration > 0" $((P * IT * 2)) \
            "$(grep -E ' (send|recv) comm=world peer=[0-9]' "$T_TMP/$n.dump" | grep -Fvc ' +0.000us ')"
        lt_eq $n "messages" $((P * IT)) "$(lt_total $n sent_messages)"
    fi

    # manyreq N ROUNDS: N requests in flight per rank, completed in a
    # shuffled order (MPI_Wait and MPI_Test): every completion names its
    # own request, i.e. the request table returned the entry of that handle
    # (a receive's matched tag is the tag it was posted with, tag i for
    # request i).
    N=3000 R=2
    if lt_run manyreq-$m $m 2 manyreq $N $R; then
        n=manyreq-$m
        "$HOPSCOPE" trace dump --rank 1 "$T_TMP/$n" >"$T_TMP/$n.dump"
        lt_eq $n "messages received" $((N * R)) "$(lt_total $n recv_messages)"
        lt_eq $n "completions whose tag is their request's posted tag" $((N * R)) \
            "$(awk '$4 == "irecv" { for (i = 5; i <= NF; i++) { if ($i ~ /^tag2=/) t = substr($i, 6); if ($i ~ /^req=/) q = substr($i, 5) }; posted[q] = t }
                    ($4 == "wait" || $4 == "test") && /\[req=/ { for (i = 5; i <= NF; i++) { if ($i ~ /^\[req=/) q = substr($i, 6); if ($i ~ /^tag=/) t = substr($i, 5) }
                                                     if ((q in posted) && posted[q] == t) ok++; delete posted[q] }
                    END { print ok + 0 }' "$T_TMP/$n.dump")"
    fi
done
[ "$t_failed" -eq 0 ]
