#!/bin/sh
# Fortran (mpif.h, use mpi, use mpi_f08) and C++ programs under Open MPI and
# MPICH: every MPI call made by the program is recorded exactly once (Open
# MPI's Fortran bindings enter through PMPI_*, MPICH's through MPI_*; the
# re-entry guard must not drop nor double any of them).
. tests/integration/lib.sh
. tests/integration/libtrace.inc

P=3 IT=6 NW=25
for m in $(lt_mpis); do
    for prog in ring_f77 ring_f90 ring_f08 ringxx; do
        n=$prog-$m
        lt_run $n $m $P $prog $IT $NW || continue
        # ringxx counts bytes, the Fortran rings 4-byte integers.
        B=$((NW * 4))
        [ $prog = ringxx ] && B=$NW
        extra=0
        [ $prog = ring_f08 ] && extra=1     # one MPI_Sendrecv per rank
        lt_eq $n "messages" $((P * (IT + extra))) "$(lt_total $n sent_messages)"
        lt_eq $n "bytes" $((P * (IT + extra) * B)) "$(lt_total $n sent_bytes)"
        lt_eq $n "received" $((P * (IT + extra))) "$(lt_total $n recv_messages)"
        lt_eq $n "init isend recv wait allreduce finalize, once each per call" \
            "$P $((P * IT)) $((P * IT)) $((P * IT)) $P $P" \
            "$(for c in init isend recv wait allreduce finalize; do printf '%s ' "$(lt_calls $n $c)"; done | sed 's/ $//')"
        if [ $prog = ring_f08 ]; then
            lt_eq $n "sendrecv bcast" "$P $P" "$(lt_calls $n sendrecv) $(lt_calls $n bcast)"
        fi
        for t in 0 1 2; do
            lt_eq $n "tag $t" $((P * IT / 3)) "$(lt_tag $n $t)"
        done
        # Nothing else was recorded: no call the program did not make.
        lt_eq $n "events" $((P * (3 * IT + 3 + 2 * extra))) "$(lt_total $n events)"
    done
done
[ "$t_failed" -eq 0 ]
