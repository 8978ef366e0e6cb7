# Shared helpers for integration tests (sourced).  Each check prints one TAP
# line, "ok - name" or "not ok - name", which tests/run.sh counts.
# Usage in a test:  . tests/integration/lib.sh; BUILD=$1; ...
BUILD=${1:-build}
HOPSCOPE="$BUILD/bin/hopscope"
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-test.XXXXXX")
trap 'rm -rf "$T_TMP"' EXIT
t_failed=0

t_ok()   { echo "ok - $1"; }
t_fail() { echo "not ok - $1"; shift; for l in "$@"; do echo "#   $l"; done; t_failed=1; }

# t_check NAME CMD...: passes when CMD exits 0
t_check() { n=$1; shift; if "$@" >"$T_TMP/out" 2>&1; then t_ok "$n"; else t_fail "$n" "command: $*" "$(tail -5 "$T_TMP/out")"; fi; }
# t_eq NAME EXPECTED ACTUAL
t_eq() { if [ "$2" = "$3" ]; then t_ok "$1"; else t_fail "$1" "expected: $2" "actual:   $3"; fi; }
# t_grep NAME PATTERN FILE: FILE contains an extended regex match
t_grep() { if grep -qE -- "$2" "$3"; then t_ok "$1"; else t_fail "$1" "no match for /$2/ in $3" "$(head -5 "$3")"; fi; }

# MPI launchers with the settings every test needs (root, oversubscription).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN_OMPI="mpirun.openmpi --oversubscribe"
MPIRUN_MPICH="mpirun.mpich"
