# hopscope sweep: the sweep.csv contract (docs/formats.md), determinism
# (same options -> the same bytes with -j1, -j2, and split into parts and
# merged), resumption after kill -9, --keep-runs, the crossings, and clear
# errors on bad input.
. tests/integration/lib.sh
H=$HOPSCOPE
cd "$T_TMP" || exit 1
H=$(cd "$OLDPWD" && cd "$(dirname "$H")" && pwd)/$(basename "$H")

"$H" gen halo3d --ranks 16 --iters 2 --size 8K -o t.trace >/dev/null 2>&1
A="-i t.trace --topo fattree:k=4,n=2 --ppn 2 --map linear,roundrobin,blocked:2,suggested --random 3 --background none --background alltoall:frac=0.5 -q"

t_check "sweep -j1" timeout 300 "$H" sweep $A -j1 -o j1
t_check "sweep -j2" timeout 300 "$H" sweep $A -j2 -o j2
t_eq "14 rows (7 mappings x 2 backgrounds) plus the header" 15 "$(wc -l < j1/sweep.csv)"
if cmp -s j1/sweep.csv j2/sweep.csv; then t_ok "-j1 and -j2 give identical sweep.csv"; else t_fail "-j1 and -j2 give identical sweep.csv" "$(diff j1/sweep.csv j2/sweep.csv | head -3)"; fi

# progress: a bar redrawn in place on a terminal (script gives the sweep one),
# lines otherwise
if command -v script >/dev/null 2>&1; then
    B=$(echo "$A" | sed 's/ -q$//')
    timeout 300 script -qc "'$H' sweep $B -j1 -o bar" /dev/null > bar.out 2>&1 < /dev/null
    t_eq "on a terminal: the last frame of the bar is full" 1 "$(tr '\r' '\n' < bar.out | grep -c '^hopscope sweep: \[##############################\] 14/14 runs, 0 running, 0 failed')"
    t_eq "on a terminal: no progress line ends in a newline before the last" 1 "$(grep -c 'runs, .* running' bar.out)"
    if cmp -s j1/sweep.csv bar/sweep.csv; then t_ok "the bar leaves sweep.csv alone"; else t_fail "the bar leaves sweep.csv alone"; fi
    "$H" sweep $B -j1 -o lines 2> lines.err > /dev/null
    t_eq "not a terminal: lines, the first and the last run among them" "1/14 14/14" "$(grep -o '^hopscope sweep: [0-9]*/14 runs done' lines.err | sed -n '1s/.*: //p;$s/.*: //p' | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')"
else
    echo "# skip - progress bar: no script(1) (bsdutils) to give the sweep a terminal"
fi

# the contract with hopscope culprits
h=$(head -1 j1/sweep.csv)
t_eq "descriptor columns, then time_s" "run,mapping,background,routing,field_bits,seed,ranks,topo,time_s" "$(echo "$h" | cut -d, -f1-9)"
bad=$(echo "$h" | tr ',' '\n' | tail -n +10 | grep -cv '^f_')
t_eq "every column after time_s starts with f_" 0 "$bad"
t_eq "feature names are unique" "$(echo "$h" | tr ',' '\n' | sort | uniq -d | wc -l)" 0
ncol=$(echo "$h" | awk -F, '{print NF}')
t_eq "every row has the header's columns" "$ncol" "$(awk -F, '{print NF}' j1/sweep.csv | sort -u)"
nonnum=$(tail -n +2 j1/sweep.csv | cut -d, -f9- | tr ',' '\n' | grep -cvE '^-?[0-9]+(\.[0-9]+)?$')
t_eq "time_s and features are plain decimal numbers" 0 "$nonnum"
t_eq "no quotes" 0 "$(grep -c '"' j1/sweep.csv)"
t_eq "run indices 0..13 in order" "0 1 2 3 4 5 6 7 8 9 10 11 12 13" "$(tail -n +2 j1/sweep.csv | cut -d, -f1 | tr '\n' ' ' | sed 's/ $//')"
t_eq "descriptors: commas of the topology spec escaped" "fattree:k=4;n=2;taper=1;bw=25GB/s;lat=100ns;nbw=25GB/s;nlat=100ns;vcs=1;routing=dmodk" "$(sed -n 2p j1/sweep.csv | cut -d, -f8)"
t_eq "mappings crossed with backgrounds" "linear,none linear,alltoall:frac=0.5 roundrobin,none" "$(tail -n +2 j1/sweep.csv | head -3 | cut -d, -f2,3 | tr '\n' ' ' | sed 's/ $//')"
t_eq "random mappings seeded from --seed" "random:1 random:2 random:3" "$(tail -n +2 j1/sweep.csv | cut -d, -f2 | grep random | sort -u | tr '\n' ' ' | sed 's/ $//')"
t_eq "blocked:ppn is the linear mapping (same row)" "$(sed -n 2p j1/sweep.csv | cut -d, -f9-)" "$(sed -n 6p j1/sweep.csv | cut -d, -f9-)"
t_eq "runs pruned by default" "" "$(ls j1/runs)"

# parts and merge
t_check "part 1/3" timeout 300 "$H" sweep $A --part 1/3 -o p1
t_check "part 2/3" timeout 300 "$H" sweep $A --part 2/3 -o p2
t_check "part 3/3" timeout 300 "$H" sweep $A --part 3/3 -o p3
t_eq "part 2/3 holds runs 1 4 7 10 13" "1 4 7 10 13" "$(tail -n +2 p2/sweep.csv | cut -d, -f1 | tr '\n' ' ' | sed 's/ $//')"
t_check "merge" "$H" sweep merge -o merged.csv p3 p1 p2
if cmp -s j1/sweep.csv merged.csv; then t_ok "parts merged = the whole sweep, byte for byte"; else t_fail "parts merged = the whole sweep, byte for byte"; fi
"$H" sweep merge -o m2.csv p1 p2 >out 2>&1; rc=$?
t_eq "merge without a part fails" 1 "$rc"
t_grep "... naming the first missing run" "not done in any of the directories, the first run 2" out
"$H" sweep -i t.trace --topo fattree:k=4,n=2 --ppn 2 --random 2 -q -o other >/dev/null 2>&1
"$H" sweep merge -o m3.csv p1 other >out 2>&1; rc=$?
t_eq "merge of two different sweeps fails" 1 "$rc"
t_grep "... saying so" "different sweeps" out

# resume: the same command on a finished directory runs nothing and
# rewrites the same file
t_check "resume a finished sweep" timeout 300 "$H" sweep $A -j2 -o j1
if cmp -s j1/sweep.csv j2/sweep.csv; then t_ok "... same sweep.csv"; else t_fail "... same sweep.csv"; fi
"$H" sweep -i t.trace --topo fattree:k=4,n=2 --ppn 2 --random 5 -q -o j1 >/dev/null 2>out; rc=$?
t_eq "another sweep into a used directory is refused" 1 "$rc"
t_grep "... saying why" "another sweep" out
"$H" sweep $A -o j1 -- --eager 32K >/dev/null 2>out; rc=$?
t_eq "resuming with other simulate options is refused" 1 "$rc"
t_grep "... saying why" "other options" out

# kill -9 in the middle, then resume: the same rows as an uninterrupted sweep
"$H" gen halo3d --ranks 64 --iters 6 --size 32K -o k.trace >/dev/null 2>&1
K="-i k.trace --topo fattree:k=4,n=2 --ppn 4 --random 12 -q"
t_check "reference sweep" timeout 300 "$H" sweep $K -j2 -o kref
"$H" sweep $K -j2 -o kill >/dev/null 2>&1 &
pid=$!
i=0
while [ "$i" -lt 600 ] && [ "$(ls kill/rows 2>/dev/null | grep -c '\.csv$')" -lt 1 ]; do sleep 0.05; i=$((i + 1)); done
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
sleep 0.3
done_before=$(ls kill/rows | grep -c '\.csv$')
if [ "$done_before" -ge 1 ] && [ "$done_before" -lt 12 ] && [ ! -f kill/sweep.csv ]; then
    t_ok "killed with $done_before of 12 rows written"
else
    t_fail "killed with $done_before of 12 rows written" "expected a sweep killed part-way"
fi
sleep 0.5
t_eq "no run survives its killed sweep" "$done_before" "$(ls kill/rows | grep -c '\.csv$')"
t_check "resume after kill -9" timeout 300 "$H" sweep $K -j2 -o kill
if cmp -s kref/sweep.csv kill/sweep.csv; then t_ok "resumed sweep = uninterrupted sweep"; else t_fail "resumed sweep = uninterrupted sweep" "$(diff kref/sweep.csv kill/sweep.csv | head -4)"; fi

# crossings, --keep-runs
t_check "routings x widths, kept runs" timeout 300 "$H" sweep -i t.trace --topo fattree:k=4,n=2 --ppn 2 --map linear --routing dmodk,adaptive --bits 5,7 --keep-runs -q -j2 -o cross
t_eq "routing x field_bits" "dmodk,5 dmodk,7 adaptive,5 adaptive,7" "$(tail -n +2 cross/sweep.csv | cut -d, -f4,5 | tr '\n' ' ' | sed 's/ $//')"
t_check "kept run directories have analysis.json" test -f cross/runs/000003/analysis.json
t_check "a kept run is a normal run directory" "$H" analyze -q cross/runs/000003
t_eq "f_truth_injq_max is app.json's replay.nic_queue_max" \
    "$(grep -m1 '"nic_queue_max"' cross/runs/000003/app.json | tr -dc '0-9')" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "f_truth_injq_max") c = i } NR == 5 { print $c }' cross/sweep.csv)"
t_eq "time_s is the run's predicted time (app.json time.total_ps)" \
    "$(grep -m1 '"total_ps"' cross/runs/000003/app.json | tr -dc '0-9')" \
    "$(sed -n 5p cross/sweep.csv | cut -d, -f9 | awk '{printf "%.0f", $1 * 1e12}')"

# runs that fail: a trace damaged in one rank's file (the manifest reads,
# every replay stops)
cp -r t.trace dmg.trace
f=dmg.trace/rank-000003.hst
sz=$(wc -c <"$f")
printf '\377\377\377\377' | dd of="$f" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
"$H" sweep -i dmg.trace --topo fattree:k=4,n=2 --ppn 2 --random 2 -q -o dmg >out 2>&1; rc=$?
t_eq "a sweep whose runs all fail: status 1" 1 "$rc"
t_eq "... failed.csv lists them" "run 0 1" "$(cut -d, -f1 dmg/failed.csv | tr '\n' ' ' | sed 's/ $//')"
t_grep "... with the reason" "simulate exited 1" dmg/failed.csv
t_eq "... and sweep.csv has no rows" 0 "$(wc -l < dmg/sweep.csv)"
"$H" sweep -i dmg.trace --topo fattree:k=4,n=2 --ppn 2 --random 2 -q -o dmg >out 2>&1
t_eq "failed runs are not retried on resume" 2 "$(grep -c 'simulate exited' dmg/failed.csv)"
t_check "--max-mem" timeout 300 "$H" sweep -i t.trace --topo fattree:k=4,n=2 --ppn 2 --max-mem 2G -q -o mm
t_eq "... same rows" "$(sed -n 2p j1/sweep.csv)" "$(sed -n 2p mm/sweep.csv)"

# bad input
t_check "sweep --help" "$H" sweep --help
chk_usage() {
    name=$1; shift
    "$H" sweep "$@" >out 2>&1; rc=$?
    if [ "$rc" = 2 ] && grep -q "^hopscope s" out; then t_ok "$name"; else t_fail "$name" "status $rc" "$(head -2 out)"; fi
}
chk_usage "no trace" --topo fattree:k=4,n=2 -o x
chk_usage "no output" -i t.trace --topo fattree:k=4,n=2
chk_usage "bad --part" -i t.trace --topo fattree:k=4,n=2 -o x --part 3/2
chk_usage "bad --bits" -i t.trace --topo fattree:k=4,n=2 -o x --bits 6,99
chk_usage "bad --map" -i t.trace --topo fattree:k=4,n=2 -o x --map spiral
chk_usage "random without a seed" -i t.trace --topo fattree:k=4,n=2 -o x --map random
chk_usage "blocked that overfills nodes" -i t.trace --topo fattree:k=4,n=2 --ppn 2 -o x --map blocked:4
chk_usage "bad routing" -i t.trace --topo fattree:k=4,n=2 -o x --routing ugal
chk_usage "bad simulate option" -i t.trace --topo fattree:k=4,n=2 -o x -- --eager lots
chk_usage "an option the sweep sets" -i t.trace --topo fattree:k=4,n=2 -o x -- --map linear
chk_usage "bad background" -i t.trace --topo fattree:k=4,n=2 -o x --background storm
chk_usage "bad --max-mem" -i t.trace --topo fattree:k=4,n=2 -o x --max-mem 8
chk_usage "a background on a full machine" -i t.trace --topo fattree:k=4,n=2 -o x --background alltoall
chk_usage "machine too small" -i k.trace --topo fattree:k=4,n=2 --ppn 1 -o x
"$H" sweep -i nosuch.trace --topo fattree:k=4,n=2 -o x >out 2>&1; rc=$?
t_eq "missing trace: status 1" 1 "$rc"
t_grep "... naming it" "nosuch.trace" out
exit $t_failed
