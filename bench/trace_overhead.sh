#!/bin/sh
# What libhopscope.so costs a running application, and what a trace costs
# on disk.  Usage: bench/trace_overhead.sh BUILD OUT.md
#
#   1. per intercepted call: one process, 3x10^6 calls of one kind
#      (bench/mpi/callcost.c), with and without the library;
#   2. 0-byte ping-pong latency in shared memory (bench/mpi/pingpong.c),
#      two ranks bound to two cores, under Open MPI and MPICH;
#   3. start-up and tear-down time of 8 ranks (bench/mpi/inittime.c);
#   4. trace bytes per event of a 3D halo exchange (tests/mpi/halo3d.c),
#      and the writer's encode/deflate time per event (bench/trace_size.c).
# Baseline and traced runs alternate, so both see the same machine state;
# every figure is the median over the runs.
#
# Environment:
#   HS_BENCH_RUNS    run pairs per figure (default 9)
#   HS_BENCH_PARTS   which parts, of: calls pingpong startup size (default all)
#   HS_BENCH_BEFORE  a directory holding <mpi>/libhopscope.so of an earlier
#                    build: parts 1 and 2 then also run it, alternating with
#                    the baseline and this build, and add a "before" column
set -u
BUILD=${1:-build}
OUT=${2:-/dev/stdout}
RUNS=${HS_BENCH_RUNS:-9}
PARTS=${HS_BENCH_PARTS:-calls pingpong startup size}
BEFORE=${HS_BENCH_BEFORE:-}
[ -n "$BEFORE" ] && BEFORE=$(cd "$BEFORE" && pwd)
part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hs-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
mpis() {
    for m in openmpi mpich; do
        [ -x "$BUILD/bench/mpi/$m/pingpong" ] && [ -f "$BUILD/lib/$m/libhopscope.so" ] && echo $m
    done
}
# run MPI NP TRACED BIND PROG ARGS...: prints the program's stdout.
# TRACED: 0 without, 1 with this build's library, b with $BEFORE's.
run() {
    m=$1 np=$2 traced=$3 bind=$4
    shift 4
    lib=$(cd "$BUILD/lib/$m" && pwd)/libhopscope.so
    [ $traced = b ] && lib=$BEFORE/$m/libhopscope.so && traced=1
    if [ $m = openmpi ]; then
        set -- mpirun.openmpi $([ $bind = 1 ] && echo --bind-to core) -np $np \
            $([ $traced = 1 ] && echo "-x LD_PRELOAD=$lib -x HOPSCOPE_DIR=$TMP/trace") "$@"
    else
        set -- mpirun.mpich $([ $bind = 1 ] && echo -bind-to core) -np $np \
            $([ $traced = 1 ] && echo "-genv LD_PRELOAD $lib -genv HOPSCOPE_DIR $TMP/trace") "$@"
    fi
    rm -rf "$TMP/trace"
    "$@" 2>>"$TMP/stderr"
}

{
echo "Baseline and traced runs alternate; each figure is the median of $RUNS runs."
echo "Settings are the defaults (every message monitored, structure deflated at level 1,"
echo "times stored)."
[ -n "$BEFORE" ] && echo "*before*: the library of an earlier build ($(basename "$BEFORE")), run in"\
    "alternation with the other two."
echo
if part calls; then
echo "### Cost per intercepted call"
echo
echo "One rank; 3x10^6 calls per run in 150 passes of 2x10^4.  *fastest pass*: wall"
echo "time of the fastest pass (a pass of ~1 ms, shorter than a scheduler slice;"
echo "it holds ~9 buffer flushes, so the fastest may hold one less than the mean)."
echo "*CPU*: the thread's CPU time over all passes (time descheduled does not"
echo "count; every flush does: encoding, deflate, write)."
echo
if [ -n "$BEFORE" ]; then
    echo "| MPI | call | without | before | with libhopscope.so | added before | added per call | traced / without | added before, CPU | added per call, CPU |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
else
    echo "| MPI | call | without | with libhopscope.so | added per call | traced / without | added per call, CPU |"
    echo "|---|---|---|---|---|---|---|"
fi
for m in $(mpis); do
    for kind in send isend iprobe allreduce; do
        : >"$TMP/b"; : >"$TMP/t"; : >"$TMP/o"
        for i in $(seq $RUNS); do
            run $m 1 0 0 "$BUILD/bench/mpi/$m/callcost" $kind 20000 150 >>"$TMP/b"
            [ -n "$BEFORE" ] && run $m 1 b 0 "$BUILD/bench/mpi/$m/callcost" $kind 20000 150 >>"$TMP/o"
            run $m 1 1 0 "$BUILD/bench/mpi/$m/callcost" $kind 20000 150 >>"$TMP/t"
        done
        b=$(awk '{print $1}' "$TMP/b" | median) t=$(awk '{print $1}' "$TMP/t" | median)
        bc_=$(awk '{print $2}' "$TMP/b" | median) tc=$(awk '{print $2}' "$TMP/t" | median)
        case $kind in
            send) what="MPI_Send to MPI_PROC_NULL" ;;
            isend) what="MPI_Isend to MPI_PROC_NULL + MPI_Wait (per call)" ;;
            iprobe) what="fruitless MPI_Iprobe (folded)" ;;
            allreduce) what="MPI_Allreduce on MPI_COMM_SELF" ;;
        esac
        if [ -n "$BEFORE" ]; then
            o=$(awk '{print $1}' "$TMP/o" | median) oc=$(awk '{print $2}' "$TMP/o" | median)
            printf '| %s | %s | %.1f ns | %.1f ns | %.1f ns | %.1f ns | **%.1f ns** | %.1f | %.1f ns | **%.1f ns** |\n' $m "$what" $b $o $t \
                "$(echo "$o - $b" | bc -l)" "$(echo "$t - $b" | bc -l)" "$(echo "$t / $b" | bc -l)" \
                "$(echo "$oc - $bc_" | bc -l)" "$(echo "$tc - $bc_" | bc -l)"
        else
            printf '| %s | %s | %.1f ns | %.1f ns | **%.1f ns** | %.1f | **%.1f ns** |\n' $m "$what" $b $t \
                "$(echo "$t - $b" | bc -l)" "$(echo "$t / $b" | bc -l)" "$(echo "$tc - $bc_" | bc -l)"
        fi
    done
done
echo
echo "Load average at the end of this part: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)."
echo
echo "Target: at most 20 ns added per call.  A call known from its arguments to be"
echo "a no-op (peer MPI_PROC_NULL, as here; a completion of only such requests)"
echo "takes one clock read; every other call two (send, receive or wait that"
echo "transfers data: see the ping-pong below)."
echo
fi
if part pingpong; then
echo "### 0-byte ping-pong in shared memory"
echo
echo "Two ranks bound to two cores, MPI_Send/MPI_Recv of 0 bytes, half round-trip"
echo "time, i.e. per message.  *mean*: over 10^5 round trips, everything included."
echo "*median*: over blocks of 100 round trips, the latency a message typically"
echo "sees; the blocks that hold a buffer flush (one in ~25) are outliers there."
echo
if [ -n "$BEFORE" ]; then
    echo "| MPI | | without | before | with libhopscope.so | added before | added per message | added % | range over the $RUNS run pairs |"
    echo "|---|---|---|---|---|---|---|---|---|"
else
    echo "| MPI | | without | with libhopscope.so | added per message | added % | range over the $RUNS run pairs |"
    echo "|---|---|---|---|---|---|---|"
fi
for m in $(mpis); do
    : >"$TMP/bm"; : >"$TMP/bd"; : >"$TMP/tm"; : >"$TMP/td"; : >"$TMP/om"; : >"$TMP/od"
    for i in $(seq $RUNS); do
        run $m 2 0 1 "$BUILD/bench/mpi/$m/pingpong" 100000 3 | sort -g -k2 | sed -n 2p >"$TMP/x"
        awk '{print $1}' "$TMP/x" >>"$TMP/bm"; awk '{print $2}' "$TMP/x" >>"$TMP/bd"
        if [ -n "$BEFORE" ]; then
            run $m 2 b 1 "$BUILD/bench/mpi/$m/pingpong" 100000 3 | sort -g -k2 | sed -n 2p >"$TMP/x"
            awk '{print $1}' "$TMP/x" >>"$TMP/om"; awk '{print $2}' "$TMP/x" >>"$TMP/od"
        fi
        run $m 2 1 1 "$BUILD/bench/mpi/$m/pingpong" 100000 3 | sort -g -k2 | sed -n 2p >"$TMP/x"
        awk '{print $1}' "$TMP/x" >>"$TMP/tm"; awk '{print $2}' "$TMP/x" >>"$TMP/td"
    done
    for w in mean median; do
        if [ $w = mean ]; then fb=$TMP/bm ft=$TMP/tm fo=$TMP/om; else fb=$TMP/bd ft=$TMP/td fo=$TMP/od; fi
        b=$(median <"$fb") t=$(median <"$ft")
        # Added % of each (baseline, traced) pair run back to back.
        range=$(paste "$fb" "$ft" | awk '{ p = ($2 - $1) * 100 / $1; if (NR == 1 || p < lo) lo = p; if (NR == 1 || p > hi) hi = p }
                                        END { printf "%.0f%% .. %.0f%%", lo, hi }')
        if [ -n "$BEFORE" ]; then
            o=$(median <"$fo")
            printf '| %s | %s | %.1f ns | %.1f ns | %.1f ns | %.1f ns | **%.1f ns** | %.0f%% | %s |\n' $m $w $b $o $t \
                "$(echo "$o - $b" | bc -l)" "$(echo "$t - $b" | bc -l)" "$(echo "($t - $b) * 100 / $b" | bc -l)" "$range"
        else
            printf '| %s | %s | %.1f ns | %.1f ns | **%.1f ns** | %.0f%% | %s |\n' $m $w $b $t \
                "$(echo "$t - $b" | bc -l)" "$(echo "($t - $b) * 100 / $b" | bc -l)" "$range"
        fi
    done
done
echo
echo "The honest figure is the ns added per message: on a ~85 ns baseline any"
echo "interposer is a large percentage.  This virtual machine's latency varies"
echo "between launches (the baseline itself moves by 20% or more), hence the range."
echo "Per round trip each rank records 2 events, each with two clock reads (the"
echo "operations transfer data).  The median shows the per-message cost (clock"
echo "reads, the wrapper, a record stored); the mean adds the flush work (encode +"
echo "deflate + write, see below), which on this two-core machine has no idle core"
echo "to run on."
echo
fi
if part startup; then
echo "### Start-up and tear-down"
echo
echo "8 ranks on this machine (oversubscribed: every rank polls for a core), the"
echo "slowest rank's time inside MPI_Init and MPI_Finalize (bench/mpi/inittime.c)."
echo
echo "| MPI | | without | with libhopscope.so | added |"
echo "|---|---|---|---|---|"
for m in $(mpis); do
    : >"$TMP/b"; : >"$TMP/t"
    ov=$([ $m = openmpi ] && echo --oversubscribe)
    for i in $(seq $RUNS); do
        if [ $m = openmpi ]; then
            mpirun.openmpi $ov -np 8 "$BUILD/bench/mpi/$m/inittime" >>"$TMP/b" 2>>"$TMP/stderr"
            run $m 8 1 0 $ov "$BUILD/bench/mpi/$m/inittime" >>"$TMP/t"
        else
            run $m 8 0 0 "$BUILD/bench/mpi/$m/inittime" >>"$TMP/b"
            run $m 8 1 0 "$BUILD/bench/mpi/$m/inittime" >>"$TMP/t"
        fi
    done
    for col in 1 2; do
        b=$(awk -v c=$col '{print $c}' "$TMP/b" | median) t=$(awk -v c=$col '{print $c}' "$TMP/t" | median)
        [ $col = 1 ] && what=MPI_Init || what=MPI_Finalize
        printf '| %s | %s | %.1f ms | %.1f ms | **%.1f ms** |\n' $m $what \
            "$(echo "$b / 1000" | bc -l)" "$(echo "$t / 1000" | bc -l)" "$(echo "($t - $b) / 1000" | bc -l)"
    done
done
echo
echo "Target: under 50 ms added to MPI_Init.  Ranks on one host share"
echo "CLOCK_MONOTONIC and take no clock-synchronisation exchanges; one rank per"
echo "other host is measured (5 ping-pongs).  What remains is one collective, an"
echo "MPI_Allgather on MPI_COMM_WORLD (host names, rank 0's settings, time zero,"
echo "readiness; a broadcast of the directory only when ranks name different"
echo "ones), a scheduler slice or more when ranks outnumber cores; it had seven."
echo
fi
if part size; then
echo "### Trace size: 3D halo exchange"
echo
echo "tests/mpi/halo3d on 8 ranks (2x2x2, periodic), 300 iterations of 6 faces of"
echo "8x8 doubles, Isend/Irecv/Waitall; Open MPI."
echo
echo "| time stream | events | bytes on disk per event | deflated payload per event | raw (varint) per event | encode | deflate |"
echo "|---|---|---|---|---|---|---|"
m=$(mpis | head -1)
for tz in 0 1; do
    lib=$(cd "$BUILD/lib/$m" && pwd)/libhopscope.so
    rm -rf "$TMP/halo"
    if [ $m = openmpi ]; then
        mpirun.openmpi --oversubscribe -np 8 -x LD_PRELOAD=$lib -x HOPSCOPE_DIR=$TMP/halo \
            -x HOPSCOPE_TIME_ZLEVEL=$tz "$BUILD/tests/mpi/$m/halo3d" 300 8 >/dev/null 2>>"$TMP/stderr"
    else
        mpirun.mpich -np 8 -genv LD_PRELOAD $lib -genv HOPSCOPE_DIR $TMP/halo \
            -genv HOPSCOPE_TIME_ZLEVEL $tz "$BUILD/tests/mpi/$m/halo3d" 300 8 >/dev/null 2>>"$TMP/stderr"
    fi
    "$BUILD/bench/trace_size" "$TMP/halo" $tz >"$TMP/size"
    read _ ev _ fb _ raw _ comp _ enc _ def <"$TMP/size"
    [ $tz = 0 ] && label="stored (default)" || label="deflated (HOPSCOPE_TIME_ZLEVEL=1)"
    printf '| %s | %d | **%.2f B** | %.2f B | %.2f B | %s ns | %s ns |\n' "$label" $ev \
        "$(echo "$fb / $ev" | bc -l)" "$(echo "$comp / $ev" | bc -l)" "$(echo "$raw / $ev" | bc -l)" \
        $enc $def
done
echo
echo "Target: at most 6 bytes per event.  Bytes on disk include file and block"
echo "headers, clock and end records.  encode/deflate: the writer's time per event"
echo "re-encoding this trace (bench/trace_size), i.e. the flush cost a traced"
echo "application pays per event."
fi
} >"$OUT"
