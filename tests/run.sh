#!/bin/sh
# Runs every test suite and ends with "N passed, N failed".
#   unit suites:        cmocka binaries, normal build then ASan+UBSan build
#   integration suites: tests/integration/*.sh, each printing "ok - name" or
#                       "not ok - name" lines (see tests/integration/lib.sh)
# A suite that crashes or exits non-zero without reporting a failure counts
# as one failed test, so nothing can pass by dying quietly.
# Usage: tests/run.sh BUILD_DIR [suite-name-filter]
set -u
BUILD=${1:-build}
FILTER=${2:-}
LOGDIR="$BUILD/test-logs"
mkdir -p "$LOGDIR"
passed=0
failed=0
failed_names=""

# Make ASan/UBSan failures loud and fatal; LeakSanitizer stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

count_cmocka() { # log -> sets p f
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$1" | awk '{s+=$1} END {print s+0}')
}
count_tap() {
    p=$(grep -c '^ok ' "$1")
    f=$(grep -c '^not ok ' "$1")
}

run_suite() { # kind name cmd...
    kind=$1; name=$2; shift 2
    case "$name" in *"$FILTER"*) ;; *) return ;; esac
    log="$LOGDIR/$(echo "$name" | tr '/ ' '__').log"
    start=$(date +%s)
    "$@" >"$log" 2>&1
    rc=$?
    if [ "$kind" = unit ]; then count_cmocka "$log"; else count_tap "$log"; fi
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "  ($name exited with status $rc without reporting a failure)" >>"$log"
    fi
    passed=$((passed + p)); failed=$((failed + f))
    secs=$(( $(date +%s) - start ))
    if [ "$f" -ne 0 ]; then
        failed_names="$failed_names $name"
        printf 'FAIL  %-40s %4d passed %3d failed  %3ds  (log: %s)\n' "$name" "$p" "$f" "$secs" "$log"
        grep -E '^\[  (FAILED|ERROR)  \]|^not ok|ERROR: |runtime error|^\[  ERROR   \]' "$log" | head -20 | sed 's/^/      /'
    else
        printf 'ok    %-40s %4d passed            %3ds\n' "$name" "$p" "$secs"
    fi
}

for t in "$BUILD"/tests/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    run_suite unit "unit/$(basename "$t")" "$t"
done
for t in "$BUILD"/san/tests/*; do
    [ -x "$t" ] && [ -f "$t" ] || continue
    run_suite unit "asan/$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
    [ -f "$t" ] || continue
    case "$(basename "$t")" in lib.sh) continue ;; esac
    run_suite tap "integration/$(basename "$t" .sh)" sh "$t" "$BUILD"
done

[ -n "$failed_names" ] && echo "failed suites:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
