#!/bin/sh
# Fuzzes every reader of outside input with hs_fuzz (tests/fuzz/hs_fuzz.c,
# ASan+UBSan): traces, topology files, phases files, mapping files,
# analysis.json, run directories, SMPI time-independent traces (trace
# import smpi), and latmodel's port-counter and latency-test CSVs, perfquery
# snapshots and InfiniBand port maps.  Seed inputs: tests/fuzz/corpus/ (the
# text formats, and an SMPI trace of tests/mpi/smpimix.c on 4 ranks) and,
# made here by the hopscope command, a trace (gen), a run directory
# (simulate -i) and its analysis.json (analyze); tables of runs (sweep.csv,
# hopscope culprits) and culprits.json; and OTF2 archives (trace import
# otf2, seeded with an exported archive and a Score-P-shaped one).
#
#   tests/fuzz/run.sh BUILD [short|long] [SEED]
#
# short (make check, about 30 s): a few thousand inputs; long: 50 times as
# many, for a session of its own.  Prints one TAP line per target and seed
# input ("ok - fuzz TARGET INPUT: N inputs ..."); an input that crashed or
# hung is kept in BUILD/fuzz-crashes/ and named in the "not ok" line.
set -u
BUILD=${1:-build}
MODE=${2:-short}
SEED=${3:-1}
H="$BUILD/bin/hopscope"
FUZZ="$BUILD/san/fuzz/hs_fuzz"
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-fuzz.XXXXXX")
trap 'rm -rf "$W"' EXIT
CRASH="$BUILD/fuzz-crashes"
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
case "$MODE" in
    short) K=1 ;;
    long)  K=50 ;;
    *) echo "usage: $0 BUILD [short|long] [SEED]" >&2; exit 2 ;;
esac
failed=0

# seed inputs made by the command (deterministic)
"$H" gen halo3d --ranks 8 --iters 2 --size 8K -o "$W/trace" --quiet || exit 1
"$H" simulate --topo torus:4x4 -i "$W/trace" -o "$W/run" --quiet || exit 1
"$H" analyze "$W/run" -q >/dev/null || exit 1
cp "$W/run/analysis.json" "$W/analysis.json"
rm -f "$W/run/analysis.json"

# fuzz TARGET INPUT ITERATIONS
fuzz() {
    t=$1; in=$2; n=$(( $3 * K ))
    rm -rf "$W/work"; mkdir -p "$W/work"
    name=$(basename "$in")
    timeout $(( 600 * K )) "$FUZZ" "$t" "$in" "$W/work" "$n" "$SEED" >"$W/out" 2>"$W/err"
    rc=$?
    if [ $rc -eq 0 ]; then
        echo "ok - fuzz $t $name: $(cut -d: -f2- "$W/out")"
    else
        mkdir -p "$CRASH"
        keep="$CRASH/$t-$name-seed$SEED"
        rm -rf "$keep"
        cp -r "$W/work/cur" "$keep" 2>/dev/null
        echo "not ok - fuzz $t $name: exit $rc, input kept in $keep"
        grep -E 'ERROR:|runtime error:|HANG|#[0-4] ' "$W/err" | head -12 | sed 's/^/#   /'
        failed=1
    fi
}

fuzz trace "$W/trace" 200
fuzz rundir "$W/run" 300
# OTF2 archives (when built with OTF2): one exported from the gen trace and
# the Score-P-shaped one of tests/integration/otf2.sh.
if "$BUILD/tests/helpers/otf2_scorep" "$W/scorep" >"$W/sp.out" 2>&1; then
    "$H" trace export otf2 "$W/trace" -o "$W/otf2" >/dev/null || exit 1
    # The OTF2 library requests memory sized by counts read from the file
    # (a mutated one asks for tens of GB): ASan's allocator must return NULL
    # for it, as malloc does outside ASan, rather than abort.  And it leaks
    # the archive it failed to open (otf2_archive_open, otf2_file_posix_open:
    # the library's, not ours): tests/fuzz/otf2.supp.
    asan=$ASAN_OPTIONS
    export ASAN_OPTIONS="$asan:allocator_may_return_null=1"
    export LSAN_OPTIONS="suppressions=$(pwd)/tests/fuzz/otf2.supp"
    fuzz otf2 "$W/otf2" 150
    fuzz otf2 "$W/scorep" 150
    export ASAN_OPTIONS="$asan"
    unset LSAN_OPTIONS
else
    echo "# skip: fuzz otf2: $(cat "$W/sp.out")"
fi
fuzz analysis "$W/analysis.json" 300
for f in tests/fuzz/corpus/topo/*; do fuzz topo "$f" 800; done
for f in tests/fuzz/corpus/phases/*; do fuzz phases "$f" 1000; done
for f in tests/fuzz/corpus/mapping/*; do fuzz mapping "$f" 1000; done
for f in tests/fuzz/corpus/smpi/*; do fuzz smpi "$f" 250; done
for t in portcounters latencytests perfquery ibmap; do
    for f in tests/fuzz/corpus/$t/*; do fuzz $t "$f" 1000; done
done
for f in tests/fuzz/corpus/culprits/*; do fuzz culprits "$f" 400; done
if "$H" culprits tests/fuzz/corpus/culprits/small.csv -o "$W/cul" --rounds 5 --folds 2 \
       --exhaustive-max 3 -q 2>/dev/null; then
    fuzz culprits_json "$W/cul/culprits.json" 300
fi
exit $failed
