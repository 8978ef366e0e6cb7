#!/bin/sh
# bench/wire/ucpcost_callgrind.sh BUILD OP [SIZE]: instructions the wire
# capture adds per UCP call, counted by callgrind (repeatable on a loaded
# machine, unlike times).  Runs bench/wire/ucpcost OP 2000 [SIZE] under
# libhopscope.so + libhopscope-wire.so of BUILD with collection toggled on
# in the wrappers and trampolines and off inside the real UCP call of the
# same name (so UCX's own work is not counted, the capture's flushes are);
# HOPSCOPE_FLUSH_INTERVAL=3600 so that only full buffers are flushed.
# Prints "OP: N instructions per call" (per call of the pair for tag and
# tagcb, as ucpcost).  Needs valgrind and MPICH.
set -u
BUILD=${1:?usage: ucpcost_callgrind.sh BUILD OP [SIZE]}
OP=${2:?usage: ucpcost_callgrind.sh BUILD OP [SIZE]}
SIZE=${3:-}
N=2000
L=$(cd "$BUILD/lib" && pwd)
EXE=$BUILD/bench/wire/ucpcost
T=$(mktemp -d "${TMPDIR:-/tmp}/hs-ucpcg.XXXXXX")
trap 'rm -rf "$T"' EXIT
mult=1
case $OP in tag|tagcb) mult=2 ;; esac
set --
for f in ucp_tag_send_nbx ucp_tag_recv_nbx ucp_request_check_status ucp_request_free \
         ucp_put_nbi ucp_worker_progress ucp_worker_flush snbx_t0 usnbx_t0 rnbx_t0 urnbx_t0; do
    set -- "$@" "--toggle-collect=$f"
done
HOPSCOPE_FLUSH_INTERVAL=3600 HOPSCOPE_DIR=$T/trace \
    LD_PRELOAD=$L/mpich/libhopscope.so:$L/libhopscope-wire.so \
    valgrind --tool=callgrind --collect-atstart=no "$@" --callgrind-out-file="$T/cg" \
    "$EXE" "$OP" $N $SIZE >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
ir=$(sed -n 's/.*Collected : //p' "$T/err")
awk -v ir="$ir" -v m=$mult -v n=$N -v op="$OP" \
    'BEGIN { printf "%s: %.1f instructions per call\n", op, ir / (30 * n * m) }'
