#!/bin/sh
# examples/wire_compare.sh [BUILD] [OUT.md]: the model's collective
# algorithms against the wire trace (docs/replay.md, "Wire-level replay").
# For allreduce, alltoall and bcast at 8 B, 64 KiB and 1 MiB on 4 and 8
# ranks: records bench/mpi/coll_size (10 calls) under MPICH with
# `hopscope record --wire-protocol` (--wire, and UCX's protocol per send, so
# that the wire replay runs the rendezvous handshakes), then replays it
# twice on the same network
# (fattree:k=4, one rank per node): with the replay's own algorithms
# (`simulate`) and with the recorded transfers (`simulate --wire`), both
# with --compute-scale 0: the recorded time between calls (and, for the
# wire replay, between the operations inside a call) is left out, so that
# the predicted times are the network's and the dependencies' alone -- on
# this oversubscribed 2-core recording host those recorded gaps are mostly
# time-sharing and would swamp both.  Prints one markdown table row per
# case: the algorithm the wire trace shows (trace stats --wire), predicted
# time and bytes on the network of each.
set -u
BUILD=${1:-build}
OUT=${2:-/dev/stdout}
H=$BUILD/bin/hopscope
EXE=$BUILD/bench/mpi/mpich/coll_size
TOPO=fattree:k=4
T=$(mktemp -d "${TMPDIR:-/tmp}/wire-compare.XXXXXX")
trap 'rm -rf "$T"' EXIT
ITERS=10
{
echo "| call | size | ranks | wire trace: algorithm, steps | model: predicted | model: network bytes | wire: predicted | wire: network bytes |"
echo "|---|---|---|---|---|---|---|---|"
for np in 4 8; do
    for kind in allreduce alltoall bcast; do
        for size in 8 65536 1048576; do
            d=$T/$kind-$size-$np
            if ! timeout 300 "$H" record --wire-protocol -o "$d" -- mpirun.mpich -np $np "$EXE" $kind $size $ITERS \
                    >"$d.rec" 2>&1; then
                echo "| $kind | $size | $np | recording failed: $(tail -1 "$d.rec") | | | | |"
                continue
            fi
            alg=$("$H" trace stats --wire "$d" | grep "^  $kind .* on $np ranks:" | head -1 |
                  sed -e 's/^  [a-z]* [0-9]* [KMi]*B on [0-9]* ranks: //' -e 's/;.*//')
            "$H" simulate --topo $TOPO --ppn 1 --compute-scale 0 -i "$d" >"$d.model" 2>&1
            "$H" simulate --topo $TOPO --ppn 1 --compute-scale 0 -i "$d" --wire >"$d.wire" 2>&1
            pt() { sed -n 's/^predicted *\([0-9.]* [a-z]*s\).*/\1/p' "$1"; }
            by() { sed -n 's/^messages *[0-9]* (\([0-9.]*\) MB).*/\1 MB/p' "$1"; }
            echo "| $kind | $size | $np | $alg | $(pt "$d.model") | $(by "$d.model") | $(pt "$d.wire") | $(by "$d.wire") |"
        done
    done
done
} >"$OUT"
