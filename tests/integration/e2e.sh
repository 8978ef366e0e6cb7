#!/bin/sh
# End to end: hopscope demo (Open MPI) and hopscope run (MPICH) go from an
# unmodified MPI application to a diagnosis and report.html; usage errors;
# a failing application stops the pipeline; re-simulating into an analysed
# run directory leaves no stale analysis behind.
. tests/integration/lib.sh

# ---- the demo -----------------------------------------------------------------
D="$T_TMP/demo"
start=$(date +%s)
"$HOPSCOPE" demo --dir "$D" > "$T_TMP/demo.out" 2>&1; rc=$?
secs=$(( $(date +%s) - start ))
t_eq "demo exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -20 "$T_TMP/demo.out"
t_check "demo under 2 minutes (took ${secs}s)" test "$secs" -lt 120
t_grep "demo records for real" 'trace in .*: 32 ranks on 8 nodes' "$T_TMP/demo.out"
# One rule for the recorded computation, applied and printed by the replay
# whichever command runs it: ranks beyond the host's cores were time-shared.
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 32 ]; then
    t_grep "demo undoes the oversubscribed recording's time-sharing" \
        "32 of 32 ranks were recorded on hosts with fewer cores than ranks \(32 ranks on $(getconf _NPROCESSORS_ONLN) cores" "$T_TMP/demo.out"
    grep -A1 '"compute_scale_applied"' "$D/run/app.json" > "$T_TMP/cs"
    t_grep "demo: app.json has the factor applied" \
        "\"min\": $(awk -v c="$(getconf _NPROCESSORS_ONLN)" 'BEGIN { printf "%.6g", c / 32 }')" "$T_TMP/cs"
fi
t_grep "demo walks the four steps" '^\[4/4\] render' "$T_TMP/demo.out"
# Scattered ranks among GPCNeT congestors: the congestion is someone else's.
t_grep "demo diagnoses interference" '^ 1\. \[interference\]' "$T_TMP/demo.out"
for ph in +x -x +y -y +z -z; do
    t_grep "demo names phase $ph" "\"name\": *\"\\$ph\"" "$D/run/analysis.json"
done
t_grep "demo compares a compact placement" '^linear +[0-9.]+ us +-[0-9.]+%' "$T_TMP/demo.out"
t_check "demo report exists" test -s "$D/run/report.html"
t_check "demo report is well-formed XHTML" xmllint --noout "$D/run/report.html"
t_check "demo trace checks clean" "$HOPSCOPE" trace check "$D/trace"
"$HOPSCOPE" demo --bogus 2> "$T_TMP/err"; t_eq "demo rejects unknown options" 2 $?

# ---- run, under MPICH ----------------------------------------------------------
R="$T_TMP/run"
APP="$BUILD/examples/mpich/halo3d"
"$HOPSCOPE" run -o "$R" --nodes 4 --topo fattree:k=4,n=2 --map roundrobin \
    -- $MPIRUN_MPICH -np 8 "$APP" -n 16 -i 5 -q > "$T_TMP/run.out" 2>&1; rc=$?
t_eq "run exits 0" 0 "$rc"
[ "$rc" -eq 0 ] || tail -20 "$T_TMP/run.out"
t_grep "run records with the MPICH library" 'trace in .*: 8 ranks on 4 nodes' "$T_TMP/run.out"
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 8 ]; then
    t_grep "run undoes the oversubscribed recording's time-sharing" \
        "8 of 8 ranks were recorded on hosts with fewer cores than ranks \(8 ranks on $(getconf _NPROCESSORS_ONLN) cores" "$T_TMP/run.out"
else
    t_check "run has no oversubscription note on $(getconf _NPROCESSORS_ONLN) cores" sh -c "! grep -q 'ranks were recorded on hosts' '$T_TMP/run.out'"
fi
t_grep "run prints findings" '^ 1\. \[(pattern|mapping|interference|none)\]' "$T_TMP/run.out"
t_grep "run prints the report path" "^report +$R/run/report.html" "$T_TMP/run.out"
t_check "run wrote analysis.json" test -s "$R/run/analysis.json"
t_check "run report is well-formed XHTML" xmllint --noout "$R/run/report.html"
# no --topo: the smallest full fat-tree holding 8 single-rank nodes is k=4
"$HOPSCOPE" run -o "$T_TMP/run2" -- $MPIRUN_MPICH -np 8 "$APP" -n 8 -i 2 -q > "$T_TMP/run2.out" 2>&1
t_grep "run sizes the machine to the job" 'fattree:k=4,n=2' "$T_TMP/run2.out"

"$HOPSCOPE" run > /dev/null 2>&1; t_eq "run without a launcher exits 2" 2 $?
"$HOPSCOPE" run --congestion-impact -- true > /dev/null 2>&1
t_eq "run --congestion-impact needs --background" 2 $?
"$HOPSCOPE" run -o "$T_TMP/fail" -- $MPIRUN_MPICH -np 2 /bin/false > "$T_TMP/fail.out" 2>&1; rc=$?
t_check "a failing application stops the pipeline" test "$rc" -ne 0
t_check "nothing simulated after a failed recording" test ! -e "$T_TMP/fail/run/manifest.json"

# ---- stale analysis ----------------------------------------------------------------
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 -i "$R/trace" --ppn 2 --quiet -o "$R/run" > /dev/null 2>&1
t_check "re-simulating removes the stale analysis" test ! -e "$R/run/analysis.json"
t_check "... and the stale report" test ! -e "$R/run/report.html"
"$HOPSCOPE" render "$R/run" > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "render refuses a run without analysis" 1 "$rc"
exit $t_failed
