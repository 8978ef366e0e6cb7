#!/bin/sh
# The replay always ends (issue 11, part 1): the case that never ended
# (oldest-first arbitration, docs/fabric.md "Arbitration"), a sweep of
# topologies x every background kind x mappings that must all complete,
# the network-deadlock detector and the progress watchdog stopping runs
# with their reports, and the background's bounded run-ahead.  Every
# simulation is bounded by `timeout` and a 4 GB address-space limit, so a
# regression fails instead of hanging the suite.
. tests/integration/lib.sh
. tests/integration/replay.inc

sim() { # OUT ERR ARGS...: a bounded simulate; sets rc
    out=$1; errf=$2; shift 2
    ( ulimit -v 4000000; exec timeout 60 "$HOPSCOPE" simulate "$@" ) > "$out" 2> "$errf"
    rc=$?
}

# ---- the repro of issue 11 -------------------------------------------------------
"$HOPSCOPE" gen halo3d --ranks 36 --iters 20 --size 2K --compute 10us -o "$T_TMP/h36" > /dev/null
DF=dragonfly:a=4,p=4,h=2,g=5
start=$(date +%s)
sim "$T_TMP/o1" "$T_TMP/e1" --topo $DF -i "$T_TMP/h36" --map random:4 \
    --background incast:frac=0.5 -o "$T_TMP/r1"
secs=$(( $(date +%s) - start ))
t_eq "issue 11 repro: ends, exit 0" 0 "$rc"
t_eq "issue 11 repro: replay status ok" ok "$(rp_field "$T_TMP/r1" status)"
t_grep "issue 11 repro: all 36 ranks end" "^predicted .*ranks end between" "$T_TMP/o1"
t_grep "issue 11 repro: every message of the job (36 x 6 x 20)" "^messages +4320 " "$T_TMP/o1"
[ "$secs" -lt 30 ] && t_ok "issue 11 repro: in well under the 60 s bound (${secs}s)" ||
    t_fail "issue 11 repro: in well under the 60 s bound" "took ${secs}s"
# (the same command, output directory included: app.json records it)
cp -r "$T_TMP/r1" "$T_TMP/r1first"
sim "$T_TMP/o2" "$T_TMP/e2" --topo $DF -i "$T_TMP/h36" --map random:4 \
    --background incast:frac=0.5 -o "$T_TMP/r1"
same=1
for f in app.json truth.bin counters.bin records.bin; do
    cmp -s "$T_TMP/r1first/$f" "$T_TMP/r1/$f" || same=0
done
t_eq "issue 11 repro: byte-identical when run again" 1 "$same"
# The same with the background unbounded, as it was when the run never
# ended: the arbiter is the fix (with the old one the watchdog stops this
# run at 5.91 ms, all 36 ranks blocked).
sim "$T_TMP/o1b" "$T_TMP/e1b" --topo $DF -i "$T_TMP/h36" --map random:4 \
    --background incast:frac=0.5 --bg-eager-credits 1000000 -o "$T_TMP/r1b"
t_eq "issue 11 repro, background unbounded: completes" "0 ok" "$rc $(rp_field "$T_TMP/r1b" status)"
t_grep "issue 11 repro, background unbounded: every message" "^messages +4320 " "$T_TMP/o1b"
# The background never runs ahead without limit: its unmatched eager
# messages stay within senders x credits (21 incast senders, 64 each).
peak=$(awk '$1 == "\"unexpected_peak\":" { v = $2; gsub(/,/, "", v); print v }' "$T_TMP/r1/app.json")
rp_lt "$peak" 1345 && t_ok "issue 11 repro: background unmatched eager <= 21 x 64 ($peak)" ||
    t_fail "issue 11 repro: background unmatched eager <= 21 x 64" "peak $peak"

# ---- bounded run-ahead, exactly ----------------------------------------------------
# 10 ms of computation while an incast of 50 senders runs: with 2 credits
# per pair the root holds at most 100 unmatched eager messages, however
# long; without a bound (1M credits) the backlog grows with time.
"$HOPSCOPE" gen halo3d --ranks 16 --iters 2 --size 2K --compute 5ms -o "$T_TMP/c16" > /dev/null
sim "$T_TMP/o3" "$T_TMP/e3" --topo $DF -i "$T_TMP/c16" --background incast:frac=0.8 \
    --bg-eager-credits 2 -o "$T_TMP/r3"
t_eq "bounded background: run completes" "0 ok" "$rc $(rp_field "$T_TMP/r3" status)"
t_eq "bounded background: 51 incast nodes" 51 "$(awk '/"nodes": \[/,/\]/' "$T_TMP/r3/app.json" | grep -cE '^ *[0-9]+,?$')"
t_eq "bounded background: peak unmatched eager = 50 senders x 2" 100 \
    "$(awk '$1 == "\"unexpected_peak\":" { v = $2; gsub(/,/, "", v); print v }' "$T_TMP/r3/app.json")"
sim "$T_TMP/o4" "$T_TMP/e4" --topo $DF -i "$T_TMP/c16" --background incast:frac=0.8 \
    --bg-eager-credits 1000000 -o "$T_TMP/r4"
p4=$(awk '$1 == "\"unexpected_peak\":" { v = $2; gsub(/,/, "", v); print v }' "$T_TMP/r4/app.json")
rp_lt 10000 "$p4" && t_ok "unbounded background: backlog grows past 10000 ($p4)" ||
    t_fail "unbounded background: backlog grows past 10000" "peak $p4"

# ---- the sweep: every background kind, three topologies, two mappings --------------
examples/replay/reliability_sweep.sh "$HOPSCOPE" "$T_TMP/sweep" small > "$T_TMP/sweep.tsv"
t_eq "sweep: 36 configurations" 36 "$(tail -n +2 "$T_TMP/sweep.tsv" | wc -l)"
t_eq "sweep: every run ended" 36 "$(awk -F'\t' '$4 == "ended"' "$T_TMP/sweep.tsv" | wc -l)"
t_eq "sweep: every run completed (status ok)" 36 "$(awk -F'\t' '$5 == "ok"' "$T_TMP/sweep.tsv" | wc -l)"
if [ "$(awk -F'\t' '$5 != "ok"' "$T_TMP/sweep.tsv" | wc -l)" -gt 1 ]; then
    awk -F'\t' 'NR > 1 && $5 != "ok" { print "#   " $0 }' "$T_TMP/sweep.tsv"
fi

# ---- the watchdog ---------------------------------------------------------------------
# A 3 us watchdog on a congested run: the first 3 us without an application
# packet delivered stop it, with the ranks and what they wait for.
"$HOPSCOPE" gen halo3d --ranks 24 --iters 5 --size 64K -o "$T_TMP/h24" > /dev/null
sim "$T_TMP/o5" "$T_TMP/e5" --topo $DF -i "$T_TMP/h24" --map random:4 \
    --background incast:frac=0.8 --watchdog 3us -o "$T_TMP/r5"
t_eq "watchdog: exit 1" 1 "$rc"
t_eq "watchdog: replay status stalled" stalled "$(rp_field "$T_TMP/r5" status)"
t_eq "watchdog: app.json watchdog_ps" 3000000 "$(rp_field "$T_TMP/r5" watchdog_ps)"
t_grep "watchdog: says how long and since when" \
    "stalled at .*: the application made no progress for 3 us \(since .*; watchdog 3 us" "$T_TMP/e5"
t_grep "watchdog: names the blocked ranks and their calls" "^  rank 0: MPI_waitall \(event [0-9]+ of the rank\) on 12 requests" "$T_TMP/e5"
t_grep "watchdog: says what they wait for" "^      message (from|to) rank [0-9]+, tag 10[0-5], 65536 bytes: " "$T_TMP/e5"
sim "$T_TMP/o6" "$T_TMP/e6" --topo $DF -i "$T_TMP/h24" --map random:4 \
    --background incast:frac=0.8 -o "$T_TMP/r6"
t_eq "default watchdog: the same run completes" "0 ok" "$rc $(rp_field "$T_TMP/r6" status)"
# default: 10 x (switch buffers 180 links x 2 VCs x 32 KiB + 80 NICs x 32 KiB)
# / 25 GB/s = 10 x 576716.8 ns
t_eq "default watchdog: 10 x the network's drain time" 5767168000 "$(rp_field "$T_TMP/r6" watchdog_ps)"
sim "$T_TMP/o7" "$T_TMP/e7" --topo $DF -i "$T_TMP/h24" --watchdog 0
t_eq "watchdog 0 is refused" 2 "$rc"

# ---- a network deadlock: a ring routed one way round ---------------------------------
{
    echo "hopscope-topology 1"
    for i in 0 1 2 3 4 5 6 7 8 9 10 11; do echo "switch s$i"; echo "node n$i"; echo "link n$i s$i"; done
    for i in 0 1 2 3 4 5 6 7 8 9 10 11; do echo "link s$i s$(( (i + 1) % 12 ))"; done
    for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
        for j in 0 1 2 3 4 5 6 7 8 9 10 11; do
            [ $i != $j ] && echo "route s$i n$j s$(( (i + 1) % 12 ))"
        done
    done
} > "$T_TMP/ring.topo"
"$HOPSCOPE" gen halo3d --ranks 12 --dims 12x1x1 --iters 2 --size 256K -o "$T_TMP/h12" > /dev/null
sim "$T_TMP/o8" "$T_TMP/e8" --topo "file:$T_TMP/ring.topo" --buffer 4K -i "$T_TMP/h12" -o "$T_TMP/r8"
t_eq "ring deadlock: exit 1" 1 "$rc"
t_eq "ring deadlock: replay status network_deadlock" network_deadlock "$(rp_field "$T_TMP/r8" status)"
t_grep "ring deadlock: the cycle is printed" "a cycle of 12 full buffers" "$T_TMP/e8"
t_eq "ring deadlock: one line per buffer of the cycle, VC 7" 12 \
    "$(grep -cE '^  link [0-9]+ s[0-9]+->s[0-9]+ \(link\) VC 7: 1 packets, 4096 B; head \(4096 B\) waits for link [0-9]+ VC 7 \(0 B of credit\)' "$T_TMP/e8")"
# the same with a background on the free ring nodes
"$HOPSCOPE" gen halo3d --ranks 8 --dims 8x1x1 --iters 2 --size 256K -o "$T_TMP/h8" > /dev/null
sim "$T_TMP/o9" "$T_TMP/e9" --topo "file:$T_TMP/ring.topo" --buffer 4K -i "$T_TMP/h8" \
    --background alltoall:nodes=4 -o "$T_TMP/r9"
t_eq "ring deadlock under a background: exit 1" 1 "$rc"
t_eq "ring deadlock under a background: network_deadlock" network_deadlock "$(rp_field "$T_TMP/r9" status)"
t_grep "ring deadlock under a background: cycle printed" "a cycle of [0-9]+ full buffers" "$T_TMP/e9"

# ---- bounded size: --max-packets ----------------------------------------------------
# 8 ranks x 2 iterations x 6 faces of 64 KiB = 96 messages of 16 packets
# (4 KiB MTU): 1536 packets.  One less is refused before anything runs,
# naming the count and the largest message; exactly 1536 replays.
"$HOPSCOPE" gen halo3d --ranks 8 --iters 2 --size 64K -o "$T_TMP/h8p" > /dev/null
sim "$T_TMP/o10" "$T_TMP/e10" --topo torus:4x4 -i "$T_TMP/h8p" --max-packets 1535 -o "$T_TMP/r10"
t_eq "max-packets 1535: refused, exit 1" 1 "$rc"
t_grep "max-packets 1535: says why" "sends 6291456 bytes, 1536 packets of 4096 bytes .*largest message: 65536 bytes, rank 0, event [0-9]+, isend.*--max-packets 1535" "$T_TMP/e10"
t_eq "max-packets 1535: no run directory" no "$([ -e "$T_TMP/r10" ] && echo yes || echo no)"
sim "$T_TMP/o11" "$T_TMP/e11" --topo torus:4x4 -i "$T_TMP/h8p" --max-packets 1536 -o "$T_TMP/r11"
t_eq "max-packets 1536: replays" "0 ok" "$rc $(rp_field "$T_TMP/r11" status)"
sim "$T_TMP/o12" "$T_TMP/e12" --topo torus:4x4 -i "$T_TMP/h8p" --max-packets lots
t_eq "max-packets lots: usage error, exit 2" 2 "$rc"

exit $t_failed
