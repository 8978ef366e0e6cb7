#!/bin/sh
# hopscope gen and simulate -i: synthetic traces at scale, the replay's run
# directory and app.json, determinism, rejection of bad input, deadlock
# reports, and two reduced-size experiments (docs/validation.md has the
# full ones): a 3D halo is faster with a mapping that keeps neighbours
# together, and the ground-truth link loads explain the order; a background
# of congestors slows a latency-sensitive canary more as it grows.
. tests/integration/lib.sh
. tests/integration/replay.inc

# ---- gen ----------------------------------------------------------------------
"$HOPSCOPE" gen halo3d --ranks 64 --iters 3 --size 20K -o "$T_TMP/h64" > "$T_TMP/g1"
t_eq "gen halo3d exits 0" 0 $?
"$HOPSCOPE" trace check "$T_TMP/h64" > "$T_TMP/c1" 2>&1
t_eq "gen halo3d: trace check clean" 0 $?
"$HOPSCOPE" trace stats "$T_TMP/h64" > "$T_TMP/s1"
t_grep "gen halo3d: 6 messages per rank per iteration" "point-to-point: 1152 messages sent" "$T_TMP/s1"
for p in pf3d canary incast; do
    "$HOPSCOPE" gen $p --ranks 24 --iters 2 -o "$T_TMP/$p" > /dev/null &&
        "$HOPSCOPE" trace check "$T_TMP/$p" > /dev/null 2>&1
    t_eq "gen $p: written and consistent" 0 $?
done
"$HOPSCOPE" gen halo3d --ranks 64 --iters 3 --size 20K -o "$T_TMP/h64b" > /dev/null
same=1
for f in "$T_TMP"/h64/*; do cmp -s "$f" "$T_TMP/h64b/$(basename "$f")" || same=0; done
t_eq "gen: same parameters, byte-identical traces" 1 "$same"
start=$(date +%s)
"$HOPSCOPE" gen halo3d --ranks 16384 --iters 1 -o "$T_TMP/h16k" > /dev/null
t_eq "gen halo3d at 16384 ranks" 0 $?
t_eq "gen 16384 ranks: every rank file" 16384 "$(ls "$T_TMP/h16k" | grep -c '^rank-')"
[ $(( $(date +%s) - start )) -lt 60 ] && t_ok "gen 16384 ranks in under a minute" ||
    t_fail "gen 16384 ranks in under a minute"
rm -rf "$T_TMP/h16k"
"$HOPSCOPE" gen halo3d --ranks 10 --dims 2x2x2 -o "$T_TMP/x" > /dev/null 2>"$T_TMP/e"
t_eq "gen rejects dims that do not multiply to the ranks" 2 $?
"$HOPSCOPE" gen spiral --ranks 4 -o "$T_TMP/x" > /dev/null 2>"$T_TMP/e"
t_eq "gen rejects an unknown pattern" 2 $?

# ---- simulate -i ----------------------------------------------------------------
T=fattree:k=8,n=2
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" -o "$T_TMP/r1" > "$T_TMP/o1" 2>"$T_TMP/e1"
t_eq "simulate -i exits 0" 0 $?
t_grep "simulate -i prints the predicted time" '^predicted +[0-9.]+ us' "$T_TMP/o1"
t_grep "simulate -i prints latency percentiles" '^latency +1152 messages across the network: p50' "$T_TMP/o1"
for f in manifest.json app.json links.tsv truth.bin counters.bin records.bin phases.tsv; do
    [ -s "$T_TMP/r1/$f" ] && t_ok "replay run dir has $f" || t_fail "replay run dir has $f"
done
t_eq "app.json format" "hopscope-app" "$(rp_field "$T_TMP/r1" format)"
t_eq "app.json ranks" 64 "$(rp_field "$T_TMP/r1" ranks)"
t_eq "app.json status" ok "$(rp_field "$T_TMP/r1" status)"
t_eq "app.json unmatched" "0 0" "$(rp_field "$T_TMP/r1" unmatched_sends) $(rp_field "$T_TMP/r1" unmatched_recvs)"
ids=""
for d in 0 1 2 3 4 5; do ids="$ids$(rp_phase "$T_TMP/r1" "tag 10$d" id)"; done
t_eq "one phase per direction tag, dense ids in order of appearance" 012345 "$ids"
t_eq "phase 'tag 103' messages (64 ranks x 3 iterations)" 192 "$(rp_phase "$T_TMP/r1" "tag 103" messages)"
t_eq "phase 'tag 103' bytes" $((192 * 20480)) "$(rp_phase "$T_TMP/r1" "tag 103" bytes)"
t_grep "phases.tsv names the tags" '^3	3	tag 103$' "$T_TMP/r1/phases.tsv"
t_eq "mapping in app.json" linear "$(rp_field "$T_TMP/r1" policy)"
t_eq "node_of_rank has a node per rank" 64 "$(awk '/"node_of_rank"/ { on = 1; next } on && /\]/ { exit } on { n++ } END { print n }' "$T_TMP/r1/app.json")"
# rank 0 of the 4x4x4 grid sends its +z face (tag 105) to rank 1, once per iteration
comm=$(awk '/"comm": \[/ { on = 1 } /"rma_comm"/ { exit } on { gsub(/[ \t]/, ""); printf "%s", $0 }' "$T_TMP/r1/app.json")
case "$comm" in *"[0,1,61440,3]"*) t_ok "comm matrix: 0 -> 1, 3 messages of 20 KiB" ;;
    *) t_fail "comm matrix: 0 -> 1, 3 messages of 20 KiB" "$(echo "$comm" | cut -c1-200)" ;; esac
t_grep "manifest names app.json" '"file": "app.json"' "$T_TMP/r1/manifest.json"
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" -o "$T_TMP/r2" --quiet
same=1
for f in manifest.json truth.bin counters.bin records.bin phases.tsv; do
    cmp -s "$T_TMP/r1/$f" "$T_TMP/r2/$f" || same=0
done
# app.json records the command line, which names the output directory
grep -v '"simulate_command"' "$T_TMP/r1/app.json" > "$T_TMP/a1"
grep -v '"simulate_command"' "$T_TMP/r2/app.json" > "$T_TMP/a2"
cmp -s "$T_TMP/a1" "$T_TMP/a2" || same=0
t_eq "same trace and seed, byte-identical run directories" 1 "$same"
t_eq "app.json records the replay's command" 1 \
    "$(grep -c "\"simulate_command\": \"hopscope simulate --topo $T -i $T_TMP/h64 -o $T_TMP/r2 --quiet\"" "$T_TMP/r2/app.json")"
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --compute-scale 0 --quiet -o "$T_TMP/r3"
t_eq "--compute-scale 0: no computation" 0 "$(rp_field "$T_TMP/r3" compute_ps)"
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --bits 5 --quiet -o "$T_TMP/r4"
t_grep "--bits 5: c=3, b=1" '"field_bits": 5' "$T_TMP/r4/manifest.json"

# usage errors and failures
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/none" > /dev/null 2>"$T_TMP/e"
t_eq "missing trace: exit 1" 1 $?
t_grep "missing trace: names the file" "none" "$T_TMP/e"
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --map sideways > /dev/null 2>"$T_TMP/e"
t_eq "bad mapping: exit 2" 2 $?
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 -i "$T_TMP/h64" > /dev/null 2>"$T_TMP/e"
t_eq "too many ranks for the machine: exit 2" 2 $?
t_grep "too many ranks: says how many nodes" "need 64 nodes; the machine has 16" "$T_TMP/e"
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --load 0.5 > /dev/null 2>"$T_TMP/e"
t_eq "traffic options with -i: exit 2" 2 $?
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --congestion-impact > /dev/null 2>"$T_TMP/e"
t_eq "--congestion-impact without a background: exit 2" 2 $?
"$HOPSCOPE" simulate --topo $T --map linear --load 0.1 > /dev/null 2>"$T_TMP/e"
t_eq "--map without a trace: exit 2" 2 $?
"$HOPSCOPE" simulate --topo $T -i "$T_TMP/h64" --background 'swirl' > /dev/null 2>"$T_TMP/e"
t_eq "bad background: exit 2" 2 $?
t_grep "bad background: names it" "unknown background 'swirl'" "$T_TMP/e"

# A rank that recorded nothing (killed at once): its neighbours wait forever.
cp -r "$T_TMP/h64" "$T_TMP/dead"
head -c 64 "$T_TMP/h64/rank-000005.hst" > "$T_TMP/dead/rank-000005.hst"
timeout 60 "$HOPSCOPE" simulate --topo $T -i "$T_TMP/dead" -o "$T_TMP/rd" > /dev/null 2>"$T_TMP/e"
t_eq "deadlock: exit 1, no hang" 1 $?
t_grep "deadlock: reported" "the replay cannot go on" "$T_TMP/e"
t_grep "deadlock: names a blocked rank and its call" "rank [0-9]+: MPI_waitall \(event [0-9]+ of the rank\) on 12 requests" "$T_TMP/e"
t_grep "deadlock: names receives that never matched" "rank [0-9]+ posted a receive from rank [0-9]+, tag 10[0-5]" "$T_TMP/e"
t_eq "deadlock: app.json says so" deadlock "$(rp_field "$T_TMP/rd" status)"
# The analysis and the report say at the top that the replay did not complete.
"$HOPSCOPE" analyze "$T_TMP/rd" > "$T_TMP/an" 2>&1
t_eq "deadlock: analyze still runs" 0 $?
sed -n 2p "$T_TMP/an" > "$T_TMP/an2"
t_grep "deadlock: analyze says so first" "^REPLAY     deadlock: the replay did not complete" "$T_TMP/an2"
t_grep "deadlock: analysis.json says so" '"replay":\{"status":"deadlock","complete":false' \
    "$T_TMP/rd/analysis.json"
"$HOPSCOPE" render "$T_TMP/rd" > /dev/null 2>&1
t_grep "deadlock: the report says so" 'class="warn"><b>The replay did not complete \(deadlock\)' \
    "$T_TMP/rd/report.html"

# ---- mapping experiment (reduced; docs/validation.md) ------------------------------
# 256 ranks, 4 per node, on a 2:1 tapered 64-node fat-tree.  Linear keeps a
# z-column on a node and an x-plane on a leaf: only +-x faces cross the
# tapered up-links.  Random scatters all of them.
"$HOPSCOPE" gen halo3d --ranks 256 --iters 3 --size 32K -o "$T_TMP/h256" > /dev/null
TT=fattree:k=8,n=2,taper=2
for m in linear random; do
    "$HOPSCOPE" simulate --topo $TT --ppn 4 --map $m -i "$T_TMP/h256" --quiet -o "$T_TMP/m-$m"
done
tl=$(rp_field "$T_TMP/m-linear" total_ps) tr=$(rp_field "$T_TMP/m-random" total_ps)
rp_lt "$tl" "$tr" && t_ok "halo3d: linear mapping faster than random ($tl < $tr ps)" ||
    t_fail "halo3d: linear mapping faster than random" "linear $tl ps, random $tr ps"
ul=$(rp_truth "$T_TMP/m-linear" up1 3) ur=$(rp_truth "$T_TMP/m-random" up1 3)
rp_lt "$ul" "$ur" && t_ok "truth: random puts more bytes on the tapered up-links ($ul < $ur)" ||
    t_fail "truth: random puts more bytes on the up-links" "linear $ul, random $ur"
bl=$(rp_truth "$T_TMP/m-linear" busiest 3) br=$(rp_truth "$T_TMP/m-random" busiest 3)
rp_lt "$bl" "$br" && t_ok "truth: random's busiest link is busier ($bl < $br ps)" ||
    t_fail "truth: random's busiest link is busier" "linear $bl ps, random $br ps"
# the busiest link's busy time bounds the communication from below
cl=$(rp_field "$T_TMP/m-linear" comm_ps)
rp_lt "$bl" "$(( cl * 3 ))" && t_ok "truth: busiest link time within 3x of the time in MPI" ||
    t_fail "truth: busiest link time within 3x of the time in MPI" "busy $bl, comm $cl"

# ---- congestion impact (reduced; docs/validation.md) -------------------------------
"$HOPSCOPE" gen canary --ranks 16 --iters 30 -o "$T_TMP/can" > /dev/null
prev=1
for f in 0.25 0.5 1.0; do
    "$HOPSCOPE" simulate --topo fattree:k=8,n=2,taper=2 -i "$T_TMP/can" --map random \
        --background mixed:frac=$f --congestion-impact --quiet -o "$T_TMP/ci-$f"
    t_eq "congestion impact run (frac $f) exits 0" 0 $?
    ci=$(rp_field "$T_TMP/ci-$f" latency_p99)
    awk -v a="$ci" -v b="$prev" 'BEGIN { exit !(a > b) }' &&
        t_ok "CI grows with the congestor fraction: $f -> $ci (> $prev)" ||
        t_fail "CI grows with the congestor fraction" "frac $f: CI $ci, previous $prev"
    prev=$ci
done
t_grep "app.json background nodes" '"background": \{' "$T_TMP/ci-1.0/app.json"
t_eq "background phases are not the application's" false \
    "$(awk '/"name": "background alltoall"/ { on = 1 } on && $1 == "\"app\":" { gsub(/,/, "", $2); print $2; exit }' "$T_TMP/ci-1.0/app.json")"
exit $t_failed
