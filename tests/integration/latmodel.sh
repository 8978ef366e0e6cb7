#!/bin/sh
# hopscope latmodel: latency tests under GPCNeT congestors on a small
# dragonfly, the port-counter CSV, the fit, its evaluation on a held-out run
# (another background and seed) with a generous bound, predictions,
# perfquery import, determinism and usage errors.  The model is in
# docs/latmodel.md; the full validation in examples/latmodel/validate.sh.
. tests/integration/lib.sh
DF=dragonfly:a=4,p=2,h=2,g=5
C="--pairs 12 --iters 60 --quiet"

"$HOPSCOPE" latmodel collect --topo $DF --background incast --seed 1 $C -o "$T_TMP/r1"
t_eq "collect under incast exits 0" 0 $?
"$HOPSCOPE" latmodel collect --topo $DF --background alltoall --seed 2 $C -o "$T_TMP/r2"
t_eq "collect under alltoall exits 0" 0 $?
"$HOPSCOPE" latmodel collect --topo $DF --background mixed --seed 3 $C -o "$T_TMP/r3"
t_eq "collect under mixed exits 0" 0 $?
# 12 pairs x 60 round trips x 2 directions
t_eq "one test per probe message" 1440 "$(($(wc -l < "$T_TMP/r1/latency_tests.csv") - 2))"
t_eq "latency tests header" "# hopscope latency-tests 1" "$(head -1 "$T_TMP/r1/latency_tests.csv")"
t_eq "port counters header" "link,t0_ps,t1_ps,xmit_bytes,xmit_pkts,xmit_wait_ps,stall_pct" \
    "$(sed -n 2p "$T_TMP/r1/port_counters.csv")"
links=$(awk -F'\t' 'NR > 2' "$T_TMP/r1/links.tsv" | wc -l)
rows=$(($(wc -l < "$T_TMP/r1/port_counters.csv") - 2))
t_eq "one row per link and window" 0 $((rows % links))
stalled=$(awk -F, 'NR > 2 && $6 > 0 && $7 > 0' "$T_TMP/r1/port_counters.csv" | wc -l)
[ "$stalled" -gt 0 ]; t_eq "the congestor stalls links ($stalled rows)" 0 $?
bad=$(awk -F, 'NR > 2 { d = $3 - $2; if ($6 > d || ($7 - 100 * $6 / d) > 1e-4 || (100 * $6 / d - $7) > 1e-4) print }' \
    "$T_TMP/r1/port_counters.csv" | head -3)
t_eq "stall_pct is 100 xmit_wait / window" "" "$bad"
"$HOPSCOPE" latmodel collect --topo $DF --background incast --seed 1 $C -o "$T_TMP/r1b"
cmp -s "$T_TMP/r1/latency_tests.csv" "$T_TMP/r1b/latency_tests.csv" &&
    cmp -s "$T_TMP/r1/port_counters.csv" "$T_TMP/r1b/port_counters.csv"
t_eq "same inputs and seed: identical tests and counters" 0 $?
"$HOPSCOPE" latmodel counters "$T_TMP/r1b" -o "$T_TMP/pc.csv" > /dev/null
cmp -s "$T_TMP/pc.csv" "$T_TMP/r1/port_counters.csv"; t_eq "latmodel counters rewrites the same CSV" 0 $?

# perfquery -x snapshots (infiniband-diags layout), 1 s apart, 4 ns ticks
cat > "$T_TMP/s0" <<'X'
# Port extended counters: Lid 12 port 3 (CapMask: 0x5300 CapMask2: 0x0000002)
PortSelect:......................3
CounterSelect:...................0x0000
PortXmitData:....................100
PortRcvData:.....................100
PortXmitPkts:....................1
PortRcvPkts:.....................1
PortXmitWait:....................0
timestamp 10.0
X
sed -e 's/Data:\.*100/Data:....................250000100/' -e 's/XmitPkts:\.*1$/XmitPkts:....................1001/' \
    -e 's/XmitWait:\.*0/XmitWait:....................25000000/' -e 's/timestamp 10.0/timestamp 11.0/' "$T_TMP/s0" > "$T_TMP/s1"
printf 'hopscope-ibmap 1\nlid 12 3 41\n' > "$T_TMP/ib.map"
"$HOPSCOPE" latmodel import --map "$T_TMP/ib.map" --tick 4ns -o "$T_TMP/ib.csv" "$T_TMP/s0" "$T_TMP/s1" > /dev/null
t_eq "import exits 0" 0 $?
t_eq "import: 4-byte words, packets, ticks x 4 ns = 10% stalled" \
    "41,0,1000000000000,1000000000,1000,100000000000,10.000000" "$(sed -n 3p "$T_TMP/ib.csv")"
sed 's/XmitWait:\.*25000000/XmitWait:..........lots/' "$T_TMP/s1" > "$T_TMP/s2"
"$HOPSCOPE" latmodel import --map "$T_TMP/ib.map" --tick 4ns -o "$T_TMP/x.csv" "$T_TMP/s0" "$T_TMP/s2" 2> "$T_TMP/err"
t_eq "malformed snapshot: exit 1" 1 $?
t_grep "malformed snapshot: named with its line" 's2: line 8: PortXmitWait' "$T_TMP/err"

"$HOPSCOPE" latmodel fit "$T_TMP/r1" "$T_TMP/r2" -o "$T_TMP/m.json" > "$T_TMP/fit.txt" 2> "$T_TMP/err"
rc=$?
if [ $rc -ne 0 ] && grep -q libgsl-dev "$T_TMP/err"; then
    echo "# skip - latmodel fit, eval, predict, report: built without GSL (install libgsl-dev)"
    exit $t_failed
fi
t_eq "fit exits 0" 0 $rc
"$HOPSCOPE" latmodel fit "$T_TMP/r1" "$T_TMP/r2" -o "$T_TMP/m2.json" > /dev/null
cmp -s "$T_TMP/m.json" "$T_TMP/m2.json"; t_eq "fit: same runs, identical model" 0 $?
t_grep "fit prints the parameters" '^  (all|endpoint|local|global) ' "$T_TMP/fit.txt"
t_grep "model JSON" '"format": "hopscope-latmodel"' "$T_TMP/m.json"
"$HOPSCOPE" latmodel eval --model "$T_TMP/m.json" "$T_TMP/r3" > "$T_TMP/ev.txt"
t_eq "eval exits 0" 0 $?
within=$(head -1 "$T_TMP/ev.txt" | sed -n 's/.*within 35%: \([0-9.]*\)%.*/\1/p')
r=$(head -1 "$T_TMP/ev.txt" | sed -n 's/.*Pearson r: \([-0-9.na]*\).*/\1/p')
# generous bounds: the held-out run (other background, other seed) on this
# machine gives ~90% and r ~ 0.9 (docs/validation.md)
awk -v w="$within" -v r="$r" 'BEGIN { exit !(w >= 60 && r >= 0.5) }'
t_eq "held-out run: >= 60% within 35% and r >= 0.5 (got $within%, r $r)" 0 $?

printf '0 39\n# comment\n\n5 6\n' > "$T_TMP/pairs"
"$HOPSCOPE" latmodel predict --model "$T_TMP/m.json" "$T_TMP/r3" --pairs "$T_TMP/pairs" > "$T_TMP/pr.txt"
t_eq "predict exits 0" 0 $?
t_eq "a line per pair" 3 "$(wc -l < "$T_TMP/pr.txt")"
bad=$(awk 'NR > 1 && !($4 <= $3 && $3 <= $5 && $3 > 0 && ($6 == "fitted" || $6 == "extrapolated"))' "$T_TMP/pr.txt")
t_eq "interval holds the expected latency" "" "$bad"
"$HOPSCOPE" latmodel predict --model "$T_TMP/m.json" --topo $DF --counters "$T_TMP/r3/port_counters.csv" \
    --pairs "$T_TMP/pairs" > "$T_TMP/pr2.txt"
cmp -s "$T_TMP/pr.txt" "$T_TMP/pr2.txt"; t_eq "predict from --topo and --counters: the same" 0 $?
# an idle machine: no stall anywhere
awk -F, 'BEGIN { OFS = "," } NR <= 2 { print; next } { $6 = 0; $7 = "0.000000"; print }' \
    "$T_TMP/r3/port_counters.csv" > "$T_TMP/idle.csv"
"$HOPSCOPE" latmodel predict --model "$T_TMP/m.json" --topo $DF --counters "$T_TMP/idle.csv" \
    --pairs "$T_TMP/pairs" > "$T_TMP/pr3.txt"
worse=$(paste "$T_TMP/pr2.txt" "$T_TMP/pr3.txt" | awk 'NR > 1 && $3 < $8')
t_eq "congestion never predicts faster than idle" "" "$worse"
all=$("$HOPSCOPE" latmodel predict --model "$T_TMP/m.json" "$T_TMP/r3" | wc -l)
t_eq "every ordered pair by default" $((40 * 39 + 1)) "$all"
"$HOPSCOPE" latmodel fit --input inband "$T_TMP/r1" "$T_TMP/r2" -o "$T_TMP/mi.json" > /dev/null
t_eq "fit on the in-band estimates exits 0" 0 $?
t_grep "in-band counters written, per window" '^[0-9]+,[1-9][0-9]*,[0-9]+,-,-,-,' "$T_TMP/r1/port_counters_inband.csv"
"$HOPSCOPE" latmodel counters --inband-run "$T_TMP/r1" > /dev/null
t_eq "in-band over the whole run: one row per link" "$links" \
    "$(awk -F, 'NR > 2 && $2 == 0' "$T_TMP/r1/port_counters_inband_run.csv" | wc -l)"

# the report: a replayed application's heaviest pairs, congested vs idle
"$HOPSCOPE" gen halo3d --ranks 8 --iters 3 -o "$T_TMP/halo" --quiet
"$HOPSCOPE" simulate --topo $DF -i "$T_TMP/halo" --map random --background incast -o "$T_TMP/app" --quiet
"$HOPSCOPE" latmodel report --model "$T_TMP/m.json" "$T_TMP/app" --top 4 > "$T_TMP/rep.txt"
t_eq "report exits 0" 0 $?
t_eq "report: the 4 heaviest pairs" 4 "$(awk '$1 ~ /^[0-9]+$/' "$T_TMP/rep.txt" | wc -l)"
bad=$(awk '$1 ~ /^[0-9]+$/ && $7 < 1' "$T_TMP/rep.txt")
t_eq "report: congestion never below idle" "" "$bad"
t_grep "report JSON" '"format": "hopscope-latmodel-report"' "$T_TMP/app/latmodel_report.json"
"$HOPSCOPE" analyze "$T_TMP/app" -q > /dev/null && "$HOPSCOPE" render "$T_TMP/app" -q
t_grep "report.html gains the heaviest pairs" '<h2 id="latmodel">Latency from link counters</h2>' \
    "$T_TMP/app/report.html"
t_eq "report.html: a row per pair" 4 "$(grep -c '<tr><td>n[0-9]* &rarr; n' "$T_TMP/app/report.html")"
"$HOPSCOPE" simulate --topo $DF --traffic uniform --load 0.1 --duration 20us -o "$T_TMP/syn" --quiet
"$HOPSCOPE" latmodel report --model "$T_TMP/m.json" "$T_TMP/syn" 2> "$T_TMP/err"
t_eq "report on a synthetic run (no app.json): exit 1" 1 $?
t_grep "report: says why" 'no app.json' "$T_TMP/err"

# chosen pairs
printf '0 39\n3 20  # same group\n' > "$T_TMP/plist"
"$HOPSCOPE" latmodel collect --topo $DF --pair-list "$T_TMP/plist" --iters 5 --quiet -o "$T_TMP/pl"
t_eq "collect --pair-list: both ways between the listed nodes" "0,39 20,3 3,20 39,0" \
    "$(awk -F, 'NR > 2 { print $1 "," $2 }' "$T_TMP/pl/latency_tests.csv" | sort -u | tr '\n' ' ' | sed 's/ $//')"
printf '0 39\n39 2\n' > "$T_TMP/plist2"
"$HOPSCOPE" latmodel collect --topo $DF --pair-list "$T_TMP/plist2" -o "$T_TMP/pl2" 2> "$T_TMP/err"
t_eq "a node in two pairs: exit 1" 1 $?
t_grep "a node in two pairs: the line named" 'plist2: line 2' "$T_TMP/err"

# usage errors
"$HOPSCOPE" latmodel fit 2> "$T_TMP/err"; t_eq "fit without runs: usage error" 2 $?
"$HOPSCOPE" latmodel import --map "$T_TMP/ib.map" --tick 4ns -o x "$T_TMP/s0" 2> /dev/null
t_eq "import of one snapshot: usage error" 2 $?
"$HOPSCOPE" latmodel eval --model "$T_TMP/none.json" "$T_TMP/r3" 2> "$T_TMP/err"
t_eq "missing model: exit 1" 1 $?
t_grep "missing model named" 'none.json' "$T_TMP/err"
printf '0 0\n' > "$T_TMP/badpairs"
"$HOPSCOPE" latmodel predict --model "$T_TMP/m.json" "$T_TMP/r3" --pairs "$T_TMP/badpairs" > /dev/null 2> "$T_TMP/err"
t_eq "bad pair: exit 1" 1 $?
t_grep "bad pair named with its line" 'badpairs: line 1' "$T_TMP/err"
"$HOPSCOPE" latmodel frobnicate 2> /dev/null; t_eq "unknown action: usage error" 2 $?
"$HOPSCOPE" latmodel fit --help > "$T_TMP/h"; t_eq "--help exits 0" 0 $?
t_grep "--help describes fit" '^usage: hopscope latmodel fit ' "$T_TMP/h"
t_grep "fit --help: its options" '^  --classes C ' "$T_TMP/h"
t_eq "fit --help: not predict's options" 0 "$(grep -c -- '--counters CSV' "$T_TMP/h")"
"$HOPSCOPE" latmodel --help > "$T_TMP/h"
t_grep "latmodel --help lists fit" '^  fit  ' "$T_TMP/h"
exit $t_failed
