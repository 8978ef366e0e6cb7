#!/bin/sh
# libhopscope.so on collectives (with v variants' per-peer byte lists),
# communicator constructors (job-wide ids that all members agree on, member
# lists in world ranks) and one-sided epochs, under Open MPI and MPICH.
# Expected values are computed from the programs' parameters.
. tests/integration/lib.sh
. tests/integration/libtrace.inc

# sum_{i,j<P} (i+j+1) and sum_{i<P} (i+1)
sum_ij() { echo $(($1 * $1 + 2 * $1 * ($1 * ($1 - 1) / 2))); }
tri() { echo $(($1 * ($1 + 1) / 2)); }

for m in $(lt_mpis); do
    P=4 IT=2 K=3
    W=$((K * 4))                    # bytes of K ints
    T=$(tri $P)
    if lt_run alltoall-$m $m $P alltoall $IT $K; then
        n=alltoall-$m
        lt_eq $n "collective calls" $((P * (IT + 16))) "$(lt_total $n coll_calls)"
        lt_eq $n "no point-to-point" 0 "$(lt_total $n sent_messages)"
        c() { printf '%s %s %s' "$(lt_calls $n $1)" "$(lt_calls $n $1 bytes_sent)" "$(lt_calls $n $1 bytes_recv)"; }
        lt_eq $n "alltoall calls/sent/recv" "$((P * IT)) $((P * IT * W * P)) $((P * IT * W * P))" "$(c alltoall)"
        lt_eq $n "alltoallv" "$P $((W * $(sum_ij $P))) $((W * $(sum_ij $P)))" "$(c alltoallv)"
        lt_eq $n "allgather" "$P $((P * W)) $((P * W * P))" "$(c allgather)"
        lt_eq $n "allgatherv" "$P $((W * T)) $((P * W * T))" "$(c allgatherv)"
        lt_eq $n "gatherv" "$P $((W * T)) $((W * T))" "$(c gatherv)"
        lt_eq $n "scatterv" "$P $((W * T)) $((W * T))" "$(c scatterv)"
        lt_eq $n "bcast" "$P $W $(((P - 1) * W))" "$(c bcast)"
        lt_eq $n "reduce (program + digest)" "$((2 * P)) $((P * (W + 8))) $((W + 8))" "$(c reduce)"
        lt_eq $n "allreduce" "$P $((P * W)) $((P * W))" "$(c allreduce)"
        lt_eq $n "scan" "$P $((P * W)) $((P * W))" "$(c scan)"
        lt_eq $n "exscan" "$P $((P * W)) $((P * W))" "$(c exscan)"
        lt_eq $n "reduce_scatter_block" "$P $((P * P * W)) $((P * W))" "$(c reduce_scatter_block)"
        lt_eq $n "reduce_scatter" "$P $((P * W * T)) $((W * T))" "$(c reduce_scatter)"
        lt_eq $n "ialltoall" "$P $((P * W * P)) $((P * W * P))" "$(c ialltoall)"
        lt_eq $n "iallreduce" "$P $((P * 4)) $((P * 4))" "$(c iallreduce)"
        lt_eq $n "barrier" "$P 0 0" "$(c barrier)"
        # Per-peer lists of a v collective, in world ranks: rank 1 sends
        # (1+j+1)*K ints to rank j and receives as many from it.
        want="sendto=$(for j in $(seq 0 $((P - 1))); do printf '%s%d:%d' "$([ $j -gt 0 ] && echo ,)" $j $(((j + 2) * W)); done)"
        "$HOPSCOPE" trace dump --rank 1 --kind alltoallv "$T_TMP/$n" >"$T_TMP/$n.a2av"
        t_grep "$n: rank 1 alltoallv per-peer bytes" "$want recvfrom" "$T_TMP/$n.a2av"
        "$HOPSCOPE" trace dump --rank 0 --kind gatherv "$T_TMP/$n" >"$T_TMP/$n.gv"
        want="recvfrom=$(for j in $(seq 0 $((P - 1))); do printf '%s%d:%d' "$([ $j -gt 0 ] && echo ,)" $j $(((j + 1) * W)); done)"
        t_grep "$n: gatherv root's per-rank bytes" "$want\$" "$T_TMP/$n.gv"
        "$HOPSCOPE" trace dump --kind waitall "$T_TMP/$n" >"$T_TMP/$n.wa"
        lt_eq $n "waitall completes the two collective requests" $P \
            "$(grep -c 'waitall \[req=0x[0-9a-f]*\] \[req=0x[0-9a-f]*\]$' "$T_TMP/$n.wa")"
    fi

    # split ITERS BYTES: see tests/mpi/split.c for the communicators.
    P=4 IT=3 B=100
    HN=$((P / 2))
    if lt_run split-$m $m $P split $IT $B; then
        n=split-$m
        lt_eq $n "messages (half rings + intercommunicator)" $((P * IT + P)) "$(lt_total $n sent_messages)"
        lt_eq $n "bytes" $((P * IT * B + P * 8)) "$(lt_total $n sent_bytes)"
        # Half rank h = HN-1-r/2 sends to half rank h+1; across, to the same
        # half rank of the other parity (r xor 1).
        want=$(for r in $(seq 0 $((P - 1))); do
                   h=$((HN - 1 - r / 2)); nh=$(((h + 1) % HN))
                   echo "$r $((2 * (HN - 1 - nh) + r % 2)) $IT $((IT * B))"
                   echo "$r $((r ^ 1)) 1 8"
               done | sort -n -k1,1 -k2,2)
        lt_eq $n "pairs in world ranks" "$want" "$(lt_pairs $n)"
        lt_eq $n "comm_create / comm_free" "$((4 * P + P / 2)) $((4 * P + P / 2))" \
            "$(lt_calls $n comm_create) $(lt_calls $n comm_free)"
        lt_eq $n "sendrecv allreduce bcast barrier" "$((P * IT + P)) $((2 * P)) $P $((P / 2))" \
            "$(lt_calls $n sendrecv) $(lt_calls $n allreduce) $(lt_calls $n bcast) $(lt_calls $n barrier)"
        "$HOPSCOPE" trace dump --rank 1 --kind comm_create "$T_TMP/$n" >"$T_TMP/$n.cc"
        odds=$(seq $((P - 1)) -2 1 | paste -sd, -) evens=$(seq $((P - 2)) -2 0 | paste -sd, -)
        t_grep "$n: split members in half-rank order (key -r)" "\(split\) members=$odds\$" "$T_TMP/$n.cc"
        t_grep "$n: intercommunicator groups" "\(intercomm_create\) members=$odds remote=$evens\$" "$T_TMP/$n.cc"
        t_grep "$n: merged (odds high)" "\(intercomm_merge\) members=$evens,$odds\$" "$T_TMP/$n.cc"
        # Every member recorded the same id for the split communicator.
        "$HOPSCOPE" trace dump --kind comm_create "$T_TMP/$n" | grep '(split)' | \
            awk '{print $5}' | sort | uniq -c | awk '{print $1}' >"$T_TMP/$n.ids"
        lt_eq $n "split ids: two communicators, $HN members each" "$HN
$HN" "$(cat "$T_TMP/$n.ids")"
    fi

    # topo: an intercommunicator collective and neighbourhood collectives on
    # a distributed graph and on a non-periodic line (tests/mpi/topo.c).
    P=4
    if lt_run topo-$m $m $P topo; then
        n=topo-$m
        "$HOPSCOPE" trace dump --kind bcast "$T_TMP/$n" >"$T_TMP/$n.bc"
        t_grep "$n: intercomm bcast: the root sends 32 bytes" "^1\.0 .* bcast comm=0x[0-9a-f]+ peer=root bytes=32\$" "$T_TMP/$n.bc"
        t_grep "$n: intercomm bcast: its own group takes no part" "^3\.0 .* bcast comm=0x[0-9a-f]+ peer=null\$" "$T_TMP/$n.bc"
        lt_eq $n "intercomm bcast: the other group receives 32 bytes from world rank 1" "2" \
            "$(grep -cE '^[02]\.0 .* bcast comm=0x[0-9a-f]+ peer=1 bytes2=32$' "$T_TMP/$n.bc")"
        "$HOPSCOPE" trace dump --kind neighbor_alltoallv "$T_TMP/$n" >"$T_TMP/$n.na"
        want=$(for r in $(seq 0 $((P - 1))); do
                   echo "$r sendto=$(((r + 1) % P)):12 recvfrom=$(((r + P - 1) % P)):12"; done)
        lt_eq $n "dist graph ring: out to rank+1, in from rank-1" "$want" \
            "$(awk '{print substr($1, 1, index($1, ".") - 1), $(NF-1), $NF}' "$T_TMP/$n.na")"
        "$HOPSCOPE" trace dump --kind neighbor_allgather "$T_TMP/$n" >"$T_TMP/$n.ng"
        t_grep "$n: line end: PROC_NULL neighbour moves nothing" \
            "^0\.0 .* bytes=8 bytes2=8 sendto=null:0,1:8 recvfrom=null:0,1:8\$" "$T_TMP/$n.ng"
        t_grep "$n: line middle: two neighbours" \
            "^1\.0 .* bytes=16 bytes2=16 sendto=0:8,2:8 recvfrom=0:8,2:8\$" "$T_TMP/$n.ng"
    fi

    # rma ITERS: see tests/mpi/rma.c.
    P=4 IT=3
    if lt_run rma-$m $m $P rma $IT; then
        n=rma-$m
        lt_eq $n "one-sided operations" $((P * (3 * IT + 5) + P / 2)) "$(lt_total $n rma_ops)"
        c() { printf '%s %s %s' "$(lt_calls $n $1)" "$(lt_calls $n $1 bytes_sent)" "$(lt_calls $n $1 bytes_recv)"; }
        lt_eq $n "put" "$((P * IT + P + P / 2)) $((P * IT * 4 + P * 12 + P / 2 * 16)) 0" "$(c put)"
        lt_eq $n "get" "$((P * IT)) 0 $((P * IT * 4))" "$(c get)"
        lt_eq $n "accumulate" "$((P * IT)) $((P * IT * 4)) 0" "$(c accumulate)"
        lt_eq $n "fetch_and_op" "$P $((P * 4)) $((P * 4))" "$(c fetch_and_op)"
        lt_eq $n "compare_and_swap" "$P $((P * 8)) $((P * 4))" "$(c compare_and_swap)"
        lt_eq $n "rput" "$P $((P * 8)) 0" "$(c rput)"
        lt_eq $n "get_accumulate" "$P $((P * 4)) $((P * 4))" "$(c get_accumulate)"
        lt_eq $n "win_create / win_free" "$P $P" "$(lt_calls $n win_create) $(lt_calls $n win_free)"
        lt_eq $n "fences" $((P * (2 * IT + 1))) "$(lt_calls $n win_fence)"
        lt_eq $n "lock_all unlock_all flush flush_all lock unlock" "$P $P $P $P $P $P" \
            "$(for k in win_lock_all win_unlock_all win_flush win_flush_all win_lock win_unlock; do printf '%s ' "$(lt_calls $n $k)"; done | sed 's/ $//')"
        lt_eq $n "post start complete wait" "$((P / 2)) $((P / 2)) $((P / 2)) $((P / 2))" \
            "$(for k in win_post win_start win_complete win_wait; do printf '%s ' "$(lt_calls $n $k)"; done | sed 's/ $//')"
        "$HOPSCOPE" trace dump --rank 1 "$T_TMP/$n" >"$T_TMP/$n.r1"
        t_grep "$n: put targets rank 2 as a world rank" "put win=0x[0-9a-f]+ peer=2 bytes=4 monitored" "$T_TMP/$n.r1"
        t_grep "$n: PSCW start names its group in world ranks" "win_start win=0x[0-9a-f]+ members=0\$" "$T_TMP/$n.r1"
        t_grep "$n: exclusive lock on rank 2" "win_lock win=0x[0-9a-f]+ peer=2 tag=1" "$T_TMP/$n.r1"
    fi
done
[ "$t_failed" -eq 0 ]
