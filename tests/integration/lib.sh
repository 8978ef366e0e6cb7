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

# The processes of a run under mpirun PID (the launcher's descendants
# named hopscope-par), by process id.
ranks_of() {
    kids=$1 all=""
    while [ -n "$kids" ]; do
        next=""
        for k in $kids; do
            for c in $(cat /proc/"$k"/task/*/children 2>/dev/null); do
                next="$next $c"
                [ "$(cat /proc/"$c"/comm 2>/dev/null)" = hopscope-par ] && all="$all $c"
            done
        done
        kids=$next
    done
    echo $all
}

# Kills one process of the 2-process run under launcher PID once both have
# started and run for a second (SIGKILL, the last one found); prints its
# process id (nothing if none was found).
kill_one_rank() {
    victims=""
    for i in $(seq 1 100); do
        victims=$(ranks_of "$1")
        [ "$(echo $victims | wc -w)" -ge 2 ] && break
        sleep 0.1
    done
    sleep 1
    v=$(echo $victims | awk '{print $NF}')
    [ -n "$v" ] && kill -9 "$v"
    echo "$v"
}
