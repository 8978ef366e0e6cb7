#!/bin/sh
# `hopscope record` and the library's settings: launcher detection (names,
# /etc/alternatives, ldd for unknown launchers), refusal of bad settings and
# of overwriting a trace, HOPSCOPE_DISABLE, virtual nodes, the seeded
# monitoring sample, and that libhopscope.so is harmless in non-MPI
# processes and exports only MPI entry points.
. tests/integration/lib.sh
. tests/integration/libtrace.inc

SAMPLING=$BUILD/tests/helpers/trace_sampling

# --- usage errors (no MPI run needed) ------------------------------------------
"$HOPSCOPE" record 2>"$T_TMP/e"; t_eq "record without a launcher exits 2" 2 $?
HOPSCOPE_SAMPLE_RATE=1.5 "$HOPSCOPE" record -- mpirun true 2>"$T_TMP/e"
t_eq "bad HOPSCOPE_SAMPLE_RATE exits 2" 2 $?
t_grep "bad setting named" "HOPSCOPE_SAMPLE_RATE=1.5" "$T_TMP/e"
HOPSCOPE_NODE_MAP=/nonexistent "$HOPSCOPE" record -- mpirun true 2>"$T_TMP/e"
t_eq "unreadable HOPSCOPE_NODE_MAP exits 2" 2 $?
"$HOPSCOPE" record --mpi lam -- mpirun true 2>"$T_TMP/e"
t_eq "unknown --mpi exits 2" 2 $?
"$HOPSCOPE" help record >"$T_TMP/h"
for s in SAMPLE_RATE SEED NODES NODE_MAP BUFFER FLUSH_INTERVAL ZLEVEL CLOCK DISABLE MPI LIB; do
    t_grep "help record documents HOPSCOPE_$s" "HOPSCOPE_$s" "$T_TMP/h"
done

# --- the library in non-MPI processes ----------------------------------------------
for m in $(lt_mpis); do
    lib=$BUILD/lib/$m/libhopscope.so
    t_check "$m: preloading into a non-MPI program with immediate binding is harmless" \
        env LD_BIND_NOW=1 LD_PRELOAD="$lib" /bin/true
    nm -D --undefined-only "$lib" | awk '$1 == "U" {print $2}' | grep -E '^(P?MPI|ompi|MPIR|MPID)' >"$T_TMP/u"
    lt_eq "$m" "no strong reference to an MPI symbol" "" "$(cat "$T_TMP/u")"
    nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' |
        grep -vE '^(P?MPI_|hopscope_wire_host_v1$)' >"$T_TMP/x"
    lt_eq "$m" "exports only MPI_*, PMPI_* and the wire library's hopscope_wire_host_v1" "" \
        "$(cat "$T_TMP/x")"
done
# libhopscope-wire.so (record --wire): only UCP entry points, no strong
# reference to anything UCX or MPI (the real functions come from dlsym).
wlib=$BUILD/lib/libhopscope-wire.so
if [ -f "$wlib" ]; then
    t_check "wire: preloading into a non-MPI program with immediate binding is harmless" \
        env LD_BIND_NOW=1 LD_PRELOAD="$wlib" /bin/true
    nm -D --defined-only "$wlib" | awk '$2 == "T" {print $3}' | grep -vE '^(ucp_|fi_fabric$)' >"$T_TMP/x"
    lt_eq wire "exports only ucp_* and fi_fabric" "" "$(cat "$T_TMP/x")"
    nm -D --undefined-only "$wlib" | awk '$1 == "U" {print $2}' | grep -E '^(uc[pts]_|fi_|P?MPI)' >"$T_TMP/u"
    lt_eq wire "no strong reference to UCX, libfabric or MPI" "" "$(cat "$T_TMP/u")"
fi
for m in $(lt_mpis); do
    lib=$BUILD/lib/$m/libhopscope.so
    lt_eq "$m" "defines MPI_Send and PMPI_Send" "2" \
        "$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -cE '^P?MPI_Send$')"
done

for m in $(lt_mpis); do
    launch=$(lt_launcher $m)
    ring=$BUILD/tests/mpi/$m/ring
    # --- launcher detection ---------------------------------------------------------
    # The generic names resolve through /etc/alternatives.
    for l in mpirun mpiexec; do
        real=$(readlink -f "$(command -v $l 2>/dev/null)" 2>/dev/null)
        case "$real" in *"$m"*|*hydra*) ;; *) continue ;; esac
        [ "$m" = mpich ] && case "$real" in *openmpi*) continue ;; esac
        extra=
        [ $m = openmpi ] && extra=--oversubscribe
        "$HOPSCOPE" record -o "$T_TMP/gen-$l-$m" -- $l $extra -np 2 "$ring" 4 100 >"$T_TMP/o" 2>&1
        t_grep "$m: '$l' ($real) recorded with the $m library" "; complete$" "$T_TMP/o"
    done
    # An unknown launcher (env): the MPI is read from the application with ldd,
    # the library goes through the environment; a one-rank singleton run.
    "$HOPSCOPE" record -o "$T_TMP/env-$m" -- env "$ring" 4 100 >"$T_TMP/o" 2>"$T_TMP/e"
    t_grep "$m: unknown launcher warned about" "not a launcher hopscope knows" "$T_TMP/e"
    t_grep "$m: unknown launcher: trace complete" "; complete$" "$T_TMP/o"
    t_grep "$m: ldd picked the $m library" "^mpi_abi $m\$" "$T_TMP/env-$m/manifest.txt"
    t_grep "$m: the host's cores recorded" "^host_cores $(getconf _NPROCESSORS_ONLN) $(hostname)\$" "$T_TMP/env-$m/manifest.txt"

    # --- refusing to overwrite ----------------------------------------------------------
    "$HOPSCOPE" record -o "$T_TMP/env-$m" -- env "$ring" 4 100 >"$T_TMP/o" 2>"$T_TMP/e"
    t_eq "$m: existing trace not overwritten (exit 2)" 2 $?
    "$HOPSCOPE" record --force -o "$T_TMP/env-$m" -- env "$ring" 4 100 >"$T_TMP/o" 2>"$T_TMP/e"
    t_eq "$m: --force overwrites" 0 $?

    # --- HOPSCOPE_DISABLE ---------------------------------------------------------------
    HOPSCOPE_DISABLE=1 "$HOPSCOPE" record -o "$T_TMP/off-$m" -- $launch -np 2 "$ring" 4 100 \
        >"$T_TMP/o" 2>"$T_TMP/e"
    t_eq "$m: disabled: application still succeeds" 0 $?
    t_check "$m: disabled: no manifest written" test ! -e "$T_TMP/off-$m/manifest.txt"
    t_grep "$m: disabled: record says there is no trace" "no readable trace" "$T_TMP/e"

    # --- virtual nodes --------------------------------------------------------------------
    nodes=$BUILD/tests/mpi/$m/nodes
    for map in block cyclic; do
        HOPSCOPE_NODES=2 HOPSCOPE_NODE_MAP=$map "$HOPSCOPE" record -o "$T_TMP/vn-$map-$m" -- \
            $launch -np 4 "$nodes" >"$T_TMP/o" 2>"$T_TMP/e"
        want=$(for r in 0 1 2 3; do
                   [ $map = block ] && k=$((r / 2)) || k=$((r % 2))
                   echo "rank $r node vnode$k node-size 2"; done)
        lt_eq "$m" "$map: processor names and shared-memory splits follow 2 virtual nodes" \
            "$want" "$(grep '^rank' "$T_TMP/o")"
        t_grep "$m: $map: manifest has 2 nodes" "^nodes 2\$" "$T_TMP/vn-$map-$m/manifest.txt"
        t_grep "$m: $map: manifest names the mapping" "^node_mode $map\$" "$T_TMP/vn-$map-$m/manifest.txt"
    done
    printf '# node of each rank\n1 1\n0\n1\n' >"$T_TMP/map.txt"
    HOPSCOPE_NODE_MAP=$T_TMP/map.txt "$HOPSCOPE" record -o "$T_TMP/vn-file-$m" -- \
        $launch -np 4 "$nodes" >"$T_TMP/o" 2>"$T_TMP/e"
    lt_eq "$m" "map file: ranks on the nodes it lists" \
        "rank 0 node vnode1 node-size 3
rank 1 node vnode1 node-size 3
rank 2 node vnode0 node-size 1
rank 3 node vnode1 node-size 3" "$(grep '^rank' "$T_TMP/o")"
    "$HOPSCOPE" record -o "$T_TMP/vn-none-$m" -- $launch -np 2 "$nodes" >"$T_TMP/o" 2>"$T_TMP/e"
    t_grep "$m: without settings: real host, one node" "^nodes 1\$" "$T_TMP/vn-none-$m/manifest.txt"
    t_grep "$m: without settings: real host name" "^rank 0 node $(hostname) node-size 2\$" "$T_TMP/o"

    # --- monitoring sample ----------------------------------------------------------------
    for run in 1 2; do
        HOPSCOPE_SAMPLE_RATE=0.5 HOPSCOPE_SEED=7 "$HOPSCOPE" record -o "$T_TMP/s$run-$m" -- \
            $launch -np 4 "$ring" 200 64 >"$T_TMP/o" 2>&1
        "$SAMPLING" "$T_TMP/s$run-$m" >"$T_TMP/s$run-$m.out" 2>&1
        t_eq "$m: run $run: every monitored flag follows the documented rule" 0 $?
    done
    got=$(cat "$T_TMP/s1-$m.out")
    t_check "$m: the sample is the same in two runs" cmp "$T_TMP/s1-$m.out" "$T_TMP/s2-$m.out"
    mon=$(echo "$got" | awk '{print $4}')
    # 800 messages at rate 0.5: binomial sd ~14; 5 sd either side.
    if [ "$mon" -gt 330 ] && [ "$mon" -lt 470 ]; then t_ok "$m: about half monitored ($mon of 800)"
    else t_fail "$m: about half monitored" "$got"; fi
    HOPSCOPE_SAMPLE_RATE=0 "$HOPSCOPE" record -o "$T_TMP/s0-$m" -- $launch -np 2 "$ring" 8 64 >"$T_TMP/o" 2>&1
    t_eq "$m: rate 0: nothing monitored" "checked 16 monitored 0 mismatches 0" "$("$SAMPLING" "$T_TMP/s0-$m")"

    # --- start-up: rank 0's settings and directory rule the job ------------------------
    # Without the command, without HOPSCOPE_DIR on rank 0 (it names the
    # directory), and with another directory and rate on the other ranks:
    # the one start-up gather sees the names differ and rank 0's is
    # broadcast; every rank writes there, monitoring everything (rank 0's rate).
    cat >"$T_TMP/perrank.sh" <<'WRAP'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
unset HOPSCOPE_DIR
[ "$r" != 0 ] && export HOPSCOPE_DIR=$PWD/not-rank0-$r HOPSCOPE_SAMPLE_RATE=0.25
exec "$@"
WRAP
    chmod +x "$T_TMP/perrank.sh"
    mkdir -p "$T_TMP/cwd-$m"
    abslib=$(cd "$BUILD/lib/$m" && pwd)/libhopscope.so absring=$(cd "$(dirname "$ring")" && pwd)/ring
    (cd "$T_TMP/cwd-$m" && timeout 120 $launch -np 3 env LD_PRELOAD="$abslib" \
        "$T_TMP/perrank.sh" "$absring" 4 100 >"$T_TMP/o" 2>"$T_TMP/e")
    t_eq "$m: per-rank settings: the application succeeds" 0 $?
    dirs=$(cd "$T_TMP/cwd-$m" && ls -d hopscope-trace-* 2>/dev/null)
    t_eq "$m: per-rank settings: one directory, named by rank 0" 1 "$(echo "$dirs" | grep -c .)"
    t_eq "$m: per-rank settings: no rank used its own directory" "" \
        "$(cd "$T_TMP/cwd-$m" && ls -d not-rank0-* 2>/dev/null)"
    t_eq "$m: per-rank settings: the three ranks' files there" 3 \
        "$(ls "$T_TMP/cwd-$m/$dirs" 2>/dev/null | grep -c '^rank-.*\.hst$')"
    t_check "$m: per-rank settings: the trace checks clean" "$HOPSCOPE" trace check "$T_TMP/cwd-$m/$dirs"
    t_grep "$m: per-rank settings: rank 0's rate rules" "^sample_rate 1\$" "$T_TMP/cwd-$m/$dirs/manifest.txt"
    t_eq "$m: per-rank settings: every message monitored" "checked 12 monitored 12 mismatches 0" \
        "$("$SAMPLING" "$T_TMP/cwd-$m/$dirs")"
done

# --- the wrong library for the application's MPI fails loudly, not silently ---------------
if [ -f "$BUILD/lib/mpich/libhopscope.so" ] && [ -x "$BUILD/tests/mpi/openmpi/ring" ]; then
    HOPSCOPE_MPI=mpich "$HOPSCOPE" record -o "$T_TMP/wrong" -- $MPIRUN_OMPI -np 1 \
        "$BUILD/tests/mpi/openmpi/ring" 2 8 >"$T_TMP/o" 2>"$T_TMP/e"
    t_check "mismatched library: the run fails" test $? -ne 0
    t_grep "mismatched library: says why" "built for mpich but the MPI library is 'Open MPI" "$T_TMP/e"
fi
[ "$t_failed" -eq 0 ]
