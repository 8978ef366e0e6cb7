#!/bin/sh
# What the capture below MPI (record --wire: libhopscope-wire.so beside
# libhopscope.so) costs.  Usage: bench/wire_overhead.sh BUILD OUT.md
#
#   1. per wrapped UCP call: one MPICH rank calling UCP itself on an
#      endpoint to its own worker (bench/wire/ucpcost.c): ucp_put_nbi of
#      8 bytes, and ucp_tag_send_nbx of 0 bytes with the ucp_tag_recv_nbx
#      that takes it, ucp_worker_progress on the idle worker, 30 passes of
#      10^5, the fastest pass; without any
#      library, with libhopscope.so alone (it does not touch UCP: a control)
#      and with both (every call recorded, flushes amortised);
#   1b. the same for libfabric (bench/wire/oficost.c, shm provider):
#      fi_tinject of 0 bytes to itself + fi_trecv + fi_cq_read, per call;
#   2. 0-byte ping-pong (bench/mpi/pingpong.c, two ranks bound to two
#      cores) under MPICH ch4:ucx and Open MPI with pml ucx: without, with
#      libhopscope.so, with libhopscope.so + libhopscope-wire.so.
# The configurations alternate run by run; every figure is the median.
# Environment: HS_BENCH_RUNS (default 9).
set -u
BUILD=${1:-build}
OUT=${2:-/dev/stdout}
RUNS=${HS_BENCH_RUNS:-9}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hs-wbench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WLIB=$(cd "$BUILD/lib" 2>/dev/null && pwd)/libhopscope-wire.so
UCX_OMPI="--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# run MPI CONF BIND NP PROG ARGS...; CONF: 0 none, 1 libhopscope.so, 2 both
run() {
    m=$1 conf=$2 bind=$3 np=$4
    shift 4
    lib=$(cd "$BUILD/lib/$m" && pwd)/libhopscope.so
    pre=
    [ "$conf" = 1 ] && pre=$lib
    [ "$conf" = 2 ] && pre=$lib:$WLIB
    rm -rf "$TMP/trace"
    if [ $m = openmpi ]; then
        set -- mpirun.openmpi $UCX_OMPI $([ $bind = 1 ] && echo --bind-to core) -np $np \
            $([ -n "$pre" ] && echo "-x LD_PRELOAD=$pre -x HOPSCOPE_DIR=$TMP/trace") "$@"
    else
        set -- mpirun.mpich $([ $bind = 1 ] && echo -bind-to core) -np $np \
            $([ -n "$pre" ] && echo "-genv LD_PRELOAD $pre -genv HOPSCOPE_DIR $TMP/trace") "$@"
    fi
    timeout 300 "$@" 2>>"$TMP/stderr"
}

if [ ! -f "$WLIB" ] || [ ! -x "$BUILD/bench/wire/ucpcost" ]; then
    echo "libhopscope-wire.so or bench/wire/ucpcost not built (needs libucx-dev and MPICH)" >"$OUT"
    exit 0
fi
{
echo "Configurations alternate run by run; each figure is the median of $RUNS runs."
echo
echo "### Cost per wrapped UCP call"
echo
echo "One MPICH rank calls UCP on an endpoint to its own worker (UCX's \`self\`"
echo "transport): 30 passes of 10^5 calls, the fastest pass, in ns per call."
echo "\`tag\` is a 0-byte \`ucp_tag_send_nbx\` plus the \`ucp_tag_recv_nbx\` that takes"
echo "it (both recorded; the figure is per call).  Target: at most 50 ns added."
echo "CPU: the same runs' process CPU time (user + system) over all passes per"
echo "call, added by --wire (medians; less disturbed by other tenants than the"
echo "fastest pass)."
echo
echo "| call | without | libhopscope.so alone | with --wire | added per call | CPU added per call |"
echo "|---|---|---|---|---|---|"
# cpu FILE: the median of the second column (ucpcost's CPU ns per call)
cpu() { awk '{ print $2 }' "$1" | median; }
cpuadd() { awk -v a="$(cpu "$1")" -v w="$(cpu "$2")" 'BEGIN { printf "%.1f ns", w - a }'; }
for op in put tag progress; do
    : >"$TMP/0"; : >"$TMP/1"; : >"$TMP/2"
    i=0
    while [ $i -lt "$RUNS" ]; do
        for c in 0 1 2; do
            run mpich $c 0 1 "$BUILD/bench/wire/ucpcost" $op 100000 >>"$TMP/$c"
        done
        i=$((i + 1))
    done
    a=$(median <"$TMP/0"); b=$(median <"$TMP/1"); w=$(median <"$TMP/2")
    case $op in
        put) name="ucp_put_nbi 8 B" ;;
        tag) name="ucp_tag_send_nbx/recv_nbx 0 B" ;;
        *) name="ucp_worker_progress, idle worker" ;;
    esac
    echo "| $name | $a ns | $b ns | $w ns | $(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.1f ns", w - a }') | $(cpuadd "$TMP/0" "$TMP/2") |"
done
# An 8 KiB send with a completion callback (UCX self: not complete in the
# posting call, so the wire library's callback trampoline runs), with --wire
# and with --wire-protocol (HOPSCOPE_WIRE_PROTOCOL=1: ucp_request_query per
# such send).  Per call of the send + receive pair, as for tag.
: >"$TMP/0"; : >"$TMP/2"; : >"$TMP/3"
i=0
while [ $i -lt "$RUNS" ]; do
    for c in 0 2 3; do
        if [ $c = 3 ]; then
            HOPSCOPE_WIRE_PROTOCOL=1 run mpich 2 0 1 "$BUILD/bench/wire/ucpcost" tagcb 20000 8192 >>"$TMP/3"
        else
            run mpich $c 0 1 "$BUILD/bench/wire/ucpcost" tagcb 20000 8192 >>"$TMP/$c"
        fi
    done
    i=$((i + 1))
done
a=$(median <"$TMP/0"); w=$(median <"$TMP/2"); p=$(median <"$TMP/3")
echo "| ucp_tag_send_nbx 8 KiB with callback + recv_nbx | $a ns | - | $w ns | $(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.1f ns", w - a }') | $(cpuadd "$TMP/0" "$TMP/2") |"
echo "| the same with --wire-protocol | $a ns | - | $p ns | $(awk -v a="$a" -v w="$p" 'BEGIN { printf "%.1f ns", w - a }') | $(cpuadd "$TMP/0" "$TMP/3") |"
if [ -x "$BUILD/bench/wire/oficost" ]; then
    : >"$TMP/0"; : >"$TMP/1"; : >"$TMP/2"
    i=0
    while [ $i -lt "$RUNS" ]; do
        for c in 0 1 2; do
            run mpich $c 0 1 "$BUILD/bench/wire/oficost" 20000 >>"$TMP/$c"
        done
        i=$((i + 1))
    done
    a=$(median <"$TMP/0"); b=$(median <"$TMP/1"); w=$(median <"$TMP/2")
    echo "| libfabric shm: fi_tinject 0 B + fi_trecv + fi_cq_read | $a ns | $b ns | $w ns | $(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.1f ns", w - a }') | - |"
fi
echo
echo "### 0-byte ping-pong"
echo
echo "Half round trip in ns (median over blocks of 100 iterations, 10^5 iterations),"
echo "two ranks bound to two cores; Open MPI with pml ucx ($UCX_OMPI)."
echo
echo "| MPI | without | libhopscope.so | with --wire | --wire adds |"
echo "|---|---|---|---|---|"
for m in mpich openmpi; do
    [ -x "$BUILD/bench/mpi/$m/pingpong" ] || continue
    : >"$TMP/0"; : >"$TMP/1"; : >"$TMP/2"
    i=0
    while [ $i -lt "$RUNS" ]; do
        for c in 0 1 2; do
            run $m $c 1 2 "$BUILD/bench/mpi/$m/pingpong" 100000 3 | sort -g -k2 | sed -n 2p |
                awk '{ print $2 }' >>"$TMP/$c"
        done
        i=$((i + 1))
    done
    a=$(median <"$TMP/0"); b=$(median <"$TMP/1"); w=$(median <"$TMP/2")
    echo "| $m | $a | $b | $w | $(awk -v b="$b" -v w="$w" 'BEGIN { printf "%.1f", w - b }') |"
done
} >"$OUT"
