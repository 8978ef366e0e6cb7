#!/bin/sh
# hash/ benchmarks: GF multiply, NIC counter update, WHT, naive vs fast decode.
set -eu
BUILD=$1; OUT=$2
"$BUILD/bench/bench_hash" 5 > "$OUT"
