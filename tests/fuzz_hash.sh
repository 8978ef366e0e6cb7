#!/bin/sh
# Longer run of the hash API fuzzer (tests/unit/test_hash_api.c) under
# ASan+UBSan than the one make check does (2000 iterations, seed 1).
#   tests/fuzz_hash.sh [ITERATIONS-PER-SEED [FIRST-SEED [SEEDS]]]
# Defaults: 100000 iterations for each of 4 seeds starting at 2 (a few
# minutes).  Exits non-zero at the first failing seed and names it, so that
# HS_FUZZ_SEED=N HS_FUZZ_ITERS=M build/san/tests/test_hash_api reproduces it.
set -eu
ITERS=${1:-100000}
SEED=${2:-2}
SEEDS=${3:-4}
BUILD=${BUILD:-build}
make --no-print-directory "$BUILD/san/tests/test_hash_api" >/dev/null
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
i=0
while [ "$i" -lt "$SEEDS" ]; do
    s=$((SEED + i))
    if ! HS_FUZZ_SEED=$s HS_FUZZ_ITERS=$ITERS "$BUILD/san/tests/test_hash_api" \
            >"$BUILD/fuzz_hash.$s.log" 2>&1; then
        echo "fuzz_hash: seed $s FAILED (log: $BUILD/fuzz_hash.$s.log)"
        exit 1
    fi
    grep '^fuzz:' "$BUILD/fuzz_hash.$s.log" | sed "s/^/seed $s: /"
    i=$((i + 1))
done
