#!/bin/sh
# MPI_THREAD_MULTIPLE: T threads per rank exchanging concurrently on
# MPI_COMM_WORLD.  Every thread's events are recorded (one stream per
# thread in the rank file), nothing is lost or duplicated, and the run does
# not deadlock (bounded by a timeout).
. tests/integration/lib.sh
. tests/integration/libtrace.inc

P=3 T=4 IT=200 B=64
for m in $(lt_mpis); do
    n=threads-$m
    lt_run $n $m $P threads $T $IT $B || continue
    lt_eq $n "messages" $((P * T * IT)) "$(lt_total $n sent_messages)"
    lt_eq $n "received" $((P * T * IT)) "$(lt_total $n recv_messages)"
    lt_eq $n "isend irecv waitall" "$((P * T * IT)) $((P * T * IT)) $((P * T * IT))" \
        "$(lt_calls $n isend) $(lt_calls $n irecv) $(lt_calls $n waitall)"
    for t in $(seq 0 $((T - 1))); do
        lt_eq $n "tag $t (thread $t)" $((P * IT)) "$(lt_tag $n $t)"
    done
    want=$(for r in $(seq 0 $((P - 1))); do echo "$r $(((r + 1) % P)) $((T * IT)) $((T * IT * B))"; done)
    lt_eq $n "pairs" "$want" "$(lt_pairs $n)"
    # Rank 0's events come from T workers plus the main thread, merged in
    # time order.
    "$HOPSCOPE" trace dump --rank 0 "$T_TMP/$n" >"$T_TMP/$n.d0"
    lt_eq $n "writer threads in rank 0" $((T + 1)) \
        "$(grep -v '^#' "$T_TMP/$n.d0" | awk '{print $1}' | sort -u | wc -l)"
    lt_eq $n "rank 0 events in start-time order" "" \
        "$(grep -v '^#' "$T_TMP/$n.d0" | awk '{ if (NR > 1 && $2 < prev) print NR; prev = $2 }' | head -3)"
done
[ "$t_failed" -eq 0 ]
