#!/bin/sh
# hopscope analyze and hopscope whatif from the command line: findings on
# synthetic and replayed runs with known answers, analysis.json, --phases,
# determinism, usage errors, and a what-if that must come out faster.
. tests/integration/lib.sh

# An incast with background (all monitored): the incast is the one finding.
"$HOPSCOPE" simulate --topo fattree:k=8,n=2 --traffic incast:target=9,senders=8,bg=0.2 \
    --load 0.5 --duration 300us -o "$T_TMP/inc" --quiet
"$HOPSCOPE" analyze "$T_TMP/inc" -q; rc=$?
t_eq "analyze -q exits 0" 0 "$rc"
cp "$T_TMP/inc/analysis.json" "$T_TMP/first.json"
"$HOPSCOPE" analyze "$T_TMP/inc" -q
cmp -s "$T_TMP/inc/analysis.json" "$T_TMP/first.json"; t_eq "analysis.json byte-identical" 0 $?
"$HOPSCOPE" analyze "$T_TMP/inc" > "$T_TMP/a1"; rc=$?
t_eq "analyze exits 0" 0 "$rc"
t_grep "incast is a pattern finding naming the node" '^ 1\. \[pattern\] Incast into node n9' "$T_TMP/a1"
t_eq "one finding only" 1 "$(grep -c '^ *[0-9]\. \[' "$T_TMP/a1")"
t_grep "decoder reported" '^decoder +route-aware' "$T_TMP/a1"
t_grep "accuracy against truth" 'route-aware +all' "$T_TMP/a1"
t_grep "analysis.json written" '"format":"hopscope-analysis","version":1' "$T_TMP/inc/analysis.json"
t_grep "analysis.json has the diagnosis" '"diagnosis":\[\{"kind":"pattern"' "$T_TMP/inc/analysis.json"

# --phases names the synthetic phase; the blind decoder on request
printf '# test\nphase 0 the incast\n' > "$T_TMP/ph.txt"
"$HOPSCOPE" analyze "$T_TMP/inc" --phases "$T_TMP/ph.txt" -o "$T_TMP/ph.json" > "$T_TMP/a2"
t_grep "--phases renames" "phase 'the incast'" "$T_TMP/a2"
"$HOPSCOPE" analyze "$T_TMP/inc" --decoder blind -o "$T_TMP/blind.json" > "$T_TMP/a3"
t_grep "blind decoder on request" '^decoder +blind' "$T_TMP/a3"

# usage errors and failures
"$HOPSCOPE" analyze > /dev/null 2>&1; t_eq "analyze without a run exits 2" 2 $?
"$HOPSCOPE" analyze "$T_TMP/inc" --frob > /dev/null 2>&1; t_eq "unknown option exits 2" 2 $?
"$HOPSCOPE" analyze "$T_TMP/inc" --cf-threshold 2 > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "bad threshold exits 2" 2 "$rc"
t_grep "bad threshold named" 'cf-threshold 2' "$T_TMP/err"
"$HOPSCOPE" analyze "$T_TMP/nothing" > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "missing run exits 1" 1 "$rc"
t_grep "missing run explained" 'not a run directory' "$T_TMP/err"
printf 'tag x y\n' > "$T_TMP/bad.txt"
"$HOPSCOPE" analyze "$T_TMP/inc" --phases "$T_TMP/bad.txt" > /dev/null 2> "$T_TMP/err"
t_grep "bad phases file names the line" 'bad.txt: line 1: ' "$T_TMP/err"
"$HOPSCOPE" simulate --topo dragonfly:a=4,p=2,h=2,g=9,routing=ugal --load 0.3 --duration 20us \
    -o "$T_TMP/ugal" --quiet
"$HOPSCOPE" analyze "$T_TMP/ugal" --decoder route > "$T_TMP/out" 2> "$T_TMP/err"; rc=$?
t_eq "route decoder runs on UGAL (candidates: minimal and Valiant paths)" 0 "$rc"
t_grep "UGAL decoder note names the detours" 'every detour through another group' "$T_TMP/out"
t_grep "UGAL analysis says which decoder" '"used":"route-aware"' "$T_TMP/ugal/analysis.json"
"$HOPSCOPE" help analyze > "$T_TMP/h"
t_grep "help lists the thresholds" '^  --load-low X' "$T_TMP/h"

# Adaptive routing leaves a packet's path in the network uncertain, but not
# its node links: an incast under UGAL is found at the root's ejection link,
# whose traffic is counted exactly (every packet's record lists it).
"$HOPSCOPE" gen incast --ranks 32 --iters 6 --size 32K --root 30 -o "$T_TMP/inc-ugal.trace" --quiet
"$HOPSCOPE" simulate --topo dragonfly:a=4,p=2,h=2,g=5,routing=ugal -i "$T_TMP/inc-ugal.trace" \
    --map linear -o "$T_TMP/inc-ugal" --quiet > /dev/null 2>&1
"$HOPSCOPE" analyze "$T_TMP/inc-ugal" > "$T_TMP/a-ugal"
t_grep "UGAL incast: the root's ejection link, a pattern" '^ 1\. \[pattern\] Incast into node n30' "$T_TMP/a-ugal"
t_grep "UGAL incast: the ejection link's traffic is exact" \
    '^  link 71 g3r3->n30 \(ejection\) +[0-9.]+\+-[0-9.]+ +1674 ' "$T_TMP/a-ugal"

# A replayed application: all-to-all in groups of 8 scattered over the
# leaves of a tapered fat-tree -> mapping; the suggestion re-simulates faster.
"$HOPSCOPE" gen pf3d --ranks 64 --group 8 --iters 6 -o "$T_TMP/pf.trace" --quiet
awk 'BEGIN { for (r = 0; r < 64; r++) print r, (r % 8) * 8 + int(r / 8) }' > "$T_TMP/scatter.map"
"$HOPSCOPE" simulate --topo fattree:k=8,n=2,taper=4 -i "$T_TMP/pf.trace" \
    --map "file:$T_TMP/scatter.map" -o "$T_TMP/pf" --quiet
"$HOPSCOPE" analyze "$T_TMP/pf" > "$T_TMP/a4"
t_grep "scattered groups are a mapping finding" '^ 1\. \[mapping\]' "$T_TMP/a4"
t_check "suggested mapping written" test -s "$T_TMP/pf/suggested.map"
"$HOPSCOPE" whatif "$T_TMP/pf" --map suggested -q > "$T_TMP/w1"; rc=$?
t_eq "whatif exits 0" 0 "$rc"
change=$(awk '/^suggested mapping/ { print $5 }' "$T_TMP/w1")
case "$change" in -*) t_ok "suggested mapping is faster ($change)" ;;
    *) t_fail "suggested mapping is faster" "change: $change" "$(cat "$T_TMP/w1")" ;; esac
t_grep "whatif recommends the suggestion only when measured fastest" \
    '^verdict: the suggested mapping is the fastest measured' "$T_TMP/w1"
t_grep "whatif measures linear beside it" '^linear mapping ' "$T_TMP/w1"
before=$(awk '/^current mapping/ { print $10 }' "$T_TMP/w1")
after=$(awk '/^suggested mapping/ { print $10 }' "$T_TMP/w1")
if [ "$after" -lt "$before" ]; then t_ok "fewer congested links ($before -> $after)"; else
    t_fail "fewer congested links" "$before -> $after"; fi
"$HOPSCOPE" whatif "$T_TMP/pf" --no-background > /dev/null 2>&1; t_eq "no background to remove exits 2" 2 $?
# The report names every step with its command line, the replay's included.
"$HOPSCOPE" render "$T_TMP/pf" -q > /dev/null
sed -n '/id="commands"/,/<\/pre>/p' "$T_TMP/pf/report.html" > "$T_TMP/prov"
t_grep "provenance: the trace's command" '^hopscope gen pf3d --ranks 64 --iters 6' "$T_TMP/prov"
t_grep "provenance: the replay's command" "^hopscope simulate --topo fattree:k=8,n=2,taper=4 -i $T_TMP/pf.trace --map file:$T_TMP/scatter.map" "$T_TMP/prov"
t_grep "provenance: the analysis" "^hopscope analyze $T_TMP/pf\$" "$T_TMP/prov"
t_grep "provenance: the render" "^hopscope render $T_TMP/pf -q\$" "$T_TMP/prov"
# The new runs keep the phase names the run's analysis had.
printf 'tag 100-105 halo\ncollective alltoall fft\n' > "$T_TMP/pf-phases.txt"
"$HOPSCOPE" analyze "$T_TMP/pf" --phases "$T_TMP/pf-phases.txt" > /dev/null
"$HOPSCOPE" whatif "$T_TMP/pf" --map linear -q -o "$T_TMP/pfw" > /dev/null
t_grep "whatif keeps named phases" '"name":"fft"' "$T_TMP/pfw/map/analysis.json"
t_grep "whatif keeps named tag ranges" '"name":"halo"' "$T_TMP/pfw/map/analysis.json"
"$HOPSCOPE" whatif "$T_TMP/pf" --map linear -q -o "$T_TMP/pfw2" --phases /dev/null > /dev/null
t_grep "whatif --phases overrides" '"name":"tag 100"' "$T_TMP/pfw2/map/analysis.json"
# whatif re-simulates under the run's own --max-packets bound (app.json keeps it)
t_grep "app.json keeps the default --max-packets" '"max_packets": 268435456' "$T_TMP/pf/app.json"
"$HOPSCOPE" simulate --topo fattree:k=8,n=2,taper=4 -i "$T_TMP/pf.trace" \
    --map "file:$T_TMP/scatter.map" --max-packets 3000000 -o "$T_TMP/pfm" --quiet
"$HOPSCOPE" whatif "$T_TMP/pfm" --map linear -q -o "$T_TMP/pfmw" > /dev/null
t_grep "app.json keeps --max-packets" '"max_packets": 3000000' "$T_TMP/pfm/app.json"
t_grep "whatif re-uses the run's --max-packets" '"max_packets": 3000000' "$T_TMP/pfmw/map/app.json"
"$HOPSCOPE" whatif "$T_TMP/inc" --map suggested > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "whatif on a synthetic run exits 1" 1 "$rc"
t_grep "whatif explains it needs a replay" 'simulate -i TRACE' "$T_TMP/err"

# A light application beside GPCNeT's all-to-all congestor -> interference;
# without the background it is fine.
"$HOPSCOPE" gen canary --ranks 32 --iters 100 --size 4K -o "$T_TMP/can.trace" --quiet
"$HOPSCOPE" simulate --topo fattree:k=8,n=2,taper=4 -i "$T_TMP/can.trace" --map random \
    --background alltoall:size=64K -o "$T_TMP/can" --quiet
"$HOPSCOPE" analyze "$T_TMP/can" > "$T_TMP/a5"
t_grep "light app beside congestors: interference" '^ 1\. \[interference\]' "$T_TMP/a5"
"$HOPSCOPE" whatif "$T_TMP/can" --no-background -q > "$T_TMP/w2"
t_grep "without background: no finding" '^current mapping, no background .* none$' "$T_TMP/w2"

# Two causes at once (issue 11 s4): a halo under a bad mapping on a tapered
# XGFT beside an all-to-all background.  The ground truth (the scenario
# suite's rule, tests/helpers/scenarios.c, on the run, the same run without
# its background and the compact mapping) must say both causes act: the job
# alone congests interior links (mapping), and the background congests
# links the job crosses that are clear without it (interference).  Then
# analyze must report both; the job alone (the same run without its
# background) mapping only; a light job beside congestors interference only.
SC="$BUILD/tests/helpers/scenarios"
two() { # DIR TOPO MAP BG FIELD TRACE
    "$HOPSCOPE" simulate --quiet --topo "$2" -i "$6" --map "$3" ${4:+--background "$4"} $5 \
        --seed 104 -o "$1" > /dev/null
}
kinds() { "$SC" score "$1" none none | sed -n 's/^FINDINGS=//p'; }
"$HOPSCOPE" gen halo3d --ranks 8 --iters 8 --size 32K --compute 2us --seed 104 --quiet \
    -o "$T_TMP/two.trace"
TOPO2=fattree:down=4x4x4,up=1x2x2
two "$T_TMP/twoA" $TOPO2 random:174 alltoall:frac=0.5,size=64K "--bits 5" "$T_TMP/two.trace"
two "$T_TMP/twoB" $TOPO2 random:174 "" "--bits 5" "$T_TMP/two.trace"
two "$T_TMP/twoC" $TOPO2 linear "" "--bits 5" "$T_TMP/two.trace"
eval "$("$SC" label mapping+interference 0 "$T_TMP/twoA" "$T_TMP/twoB" "$T_TMP/twoC")"
t_eq "two causes: the truth has mapping and interference" mapping+interference "$EXPECTED"
"$HOPSCOPE" analyze -q "$T_TMP/twoA"
t_eq "two causes: both reported, mapping first" "mapping,interference" "$(kinds "$T_TMP/twoA")"
"$HOPSCOPE" analyze -q "$T_TMP/twoB"
k=$(kinds "$T_TMP/twoB")
# (it also gets a pattern finding the truth does not have: an older, separate error)
case ",$k," in
    *,interference,*) t_fail "the same job alone: mapping, no interference" "$k" ;;
    *,mapping,*) t_ok "the same job alone: mapping, no interference" ;;
    *) t_fail "the same job alone: mapping, no interference" "$k" ;;
esac
# a light job beside congestors: the truth says interference only, and so must analyze
"$HOPSCOPE" gen pingpong --ranks 32 --iters 158 --size 16K --seed 103 --quiet -o "$T_TMP/one.trace"
for d in oneA oneB oneC; do
    case $d in oneA) m=random:57 b=incast:frac=0.4,size=64K ;; oneB) m=random:57 b= ;; oneC) m=linear b= ;; esac
    "$HOPSCOPE" simulate --quiet --topo fattree:k=8,n=2,taper=2 -i "$T_TMP/one.trace" --map $m \
        ${b:+--background $b} --seed 103 -o "$T_TMP/$d" > /dev/null
done
eval "$("$SC" label interference 0 "$T_TMP/oneA" "$T_TMP/oneB" "$T_TMP/oneC")"
t_eq "light job beside congestors: the truth is interference" interference "$EXPECTED"
"$HOPSCOPE" analyze -q "$T_TMP/oneA"
t_eq "light job beside congestors: interference only" "interference" "$(kinds "$T_TMP/oneA")"

# A job alone on the machine is never "interference": there is nobody else.
# Its own bursts (D-mod-K funnels, all-to-all rounds, head-of-line blocking,
# torus back-pressure) congest links at moderate load; the analyzer must put
# that on the pattern or the mapping.  Patterns, machines and mappings vary.
for c in "halo3d 64 torus:4x4x4 random 1" "pf3d 128 fattree:k=16,n=2,taper=2 linear 1" \
         "pf3d 256 fattree:k=8,n=2,taper=2 roundrobin 4" "halo3d 128 dragonfly:a=4,p=2,h=2,g=9 random 2" \
         "canary 64 fattree:k=8,n=2 random 1" "halo3d 216 torus:6x6x6 linear 1" \
         "pf3d 64 torus:4x4x4 random 1" "halo3d 512 fattree:k=8,n=2,taper=2 random 8" \
         "pf3d 128 fattree:k=16,n=2,taper=2 shift:8 1" "halo3d 64 mesh:8x8 random 1"; do
    set -- $c
    "$HOPSCOPE" gen "$1" --ranks "$2" --ppn "$5" -o "$T_TMP/alone.trace" --quiet
    "$HOPSCOPE" simulate --topo "$3" -i "$T_TMP/alone.trace" --map "$4" --quiet -o "$T_TMP/alone"
    "$HOPSCOPE" analyze "$T_TMP/alone" > "$T_TMP/alone.txt"
    if grep -q '^ [0-9]*\. \[interference\]' "$T_TMP/alone.txt"; then
        t_fail "alone, no interference: $c" "$(grep -A3 '\[interference\]' "$T_TMP/alone.txt")"
    else
        t_ok "alone, no interference: $c"
    fi
done
exit $t_failed
