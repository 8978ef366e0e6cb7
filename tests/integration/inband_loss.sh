#!/bin/sh
# No silent loss (issue 11, part 2): the default hop counter fits the
# network's longest route; a forced narrow one is warned about, its
# overflowed packets are counted by simulate, analyze and analysis.json,
# and nothing is called exact; sampled monitoring scales the estimates,
# says what was sampled, and stays unbiased against the ground truth.
. tests/integration/lib.sh

# first value of a key in a JSON file (one line or pretty-printed)
jv() { grep -o "\"$1\": *[^,}]*" "$2" | head -1 | cut -d: -f2 | tr -d ' '; }

"$HOPSCOPE" gen halo3d --ranks 96 --iters 4 -o "$T_TMP/T" --quiet
"$HOPSCOPE" gen halo3d --ranks 96 --iters 4 --monitor 0.3 -o "$T_TMP/Tm" --quiet

# default width on torus:6x4x4 (routes up to 3 + 2 + 2 + 2 = 9 links): c = 4, nothing lost
"$HOPSCOPE" simulate --topo torus:6x4x4 -i "$T_TMP/T" --map random -o "$T_TMP/def" \
    > "$T_TMP/s1" 2> "$T_TMP/e1"
t_grep "default: in-band line with the fitted counter" \
    '^in-band +6-bit field, 4-bit hop counter \(holds 14 links; longest route here 9\); [0-9]+ packets monitored \(probability 1 per message\), 0 overflowed' "$T_TMP/s1"
if grep -q WARNING "$T_TMP/s1" "$T_TMP/e1"; then t_fail "default: no warning"; else t_ok "default: no warning"; fi
"$HOPSCOPE" analyze "$T_TMP/def" > "$T_TMP/a1"
t_eq "default: traffic exact" true "$(jv traffic_exact "$T_TMP/def/analysis.json")"
t_eq "default: no overflow in analysis.json" 0 "$(jv packets_overflowed "$T_TMP/def/analysis.json")"
t_eq "default: max_route_links 9" 9 "$(jv max_route_links "$T_TMP/def/analysis.json")"
t_grep "default: analyze says traffic is exact" 'traffic is exact' "$T_TMP/a1"

# --bits 5 forces a 3-bit counter (6 links): warned before the run, counted after
"$HOPSCOPE" simulate --topo torus:6x4x4 -i "$T_TMP/T" --map random --bits 5 -o "$T_TMP/b5" \
    > "$T_TMP/s2" 2> "$T_TMP/e2"
t_grep "--bits 5: warned before the run" \
    'WARNING: routes on this network have up to 9 links but a 3-bit hop counter holds 6' "$T_TMP/e2"
ovf=$(sed -n 's/^in-band .* \([0-9][0-9]*\) overflowed$/\1/p' "$T_TMP/s2")
mon=$(sed -n 's/^in-band .*; \([0-9][0-9]*\) packets monitored.*/\1/p' "$T_TMP/s2")
if [ -n "$ovf" ] && [ "$ovf" -gt 0 ]; then t_ok "--bits 5: simulate counts overflow ($ovf of $mon)"
else t_fail "--bits 5: simulate counts overflow" "$(cat "$T_TMP/s2")"; fi
t_grep "--bits 5: simulate prints a WARNING line" "^WARNING +$ovf monitored packets" "$T_TMP/s2"
t_eq "--bits 5: manifest counts the same" "$ovf" "$(jv packets_overflowed "$T_TMP/b5/manifest.json")"
"$HOPSCOPE" analyze "$T_TMP/b5" > "$T_TMP/a2"
J="$T_TMP/b5/analysis.json"
t_eq "--bits 5: analysis.json counts the same" "$ovf" "$(jv packets_overflowed "$J")"
t_eq "--bits 5: analysis.json monitored" "$mon" "$(jv packets_monitored "$J")"
t_eq "--bits 5: traffic not exact" false "$(jv traffic_exact "$J")"
t_grep "--bits 5: caveat in analysis.json" '"caveats":"WARNING: [0-9]+ of [0-9]+ monitored packets' "$J"
t_grep "--bits 5: analyze warns" "WARNING: $ovf of $mon monitored packets" "$T_TMP/a2"
if grep -q 'traffic is exact' "$T_TMP/a2"; then t_fail "--bits 5: never called exact"
else t_ok "--bits 5: never called exact"; fi
# dimension-order routing: every overflowed packet's path is known, so on
# every link the counted traffic plus links[].overflowed is the truth,
# exactly (all monitored, no record cap)
r=$(awk 'BEGIN { RS = "[{]\"id\":" } NR > 1 {
        s = $0; b = index(s, "\"blind\""); h = b ? substr(s, 1, b) : s; t = 0; o = 0; p = -1
        if (match(h, /"traffic":[-0-9.e+]+/)) t = substr(h, RSTART + 10, RLENGTH - 10)
        if (match(h, /"overflowed":[-0-9.e+]+/)) o = substr(h, RSTART + 13, RLENGTH - 13)
        if (match(s, /"truth":[{]"packets":[0-9.e+]+/)) p = substr(s, RSTART + 19, RLENGTH - 19)
        if (p >= 0) { n++; lo += o > 0; if ((t + o - p) ^ 2 > (1e-5 * (p + 1)) ^ 2) bad++ }
    } END { printf "%s %d links, %d missing packets, %d wrong", ((n > 0 && lo > 0 && !bad) ? "ok" : "bad"), n, lo, bad }' "$J")
case "$r" in ok*) t_ok "--bits 5: traffic + overflowed = truth on every link ($r)" ;;
             *) t_fail "--bits 5: traffic + overflowed = truth on every link" "$r" ;; esac
t_grep "--bits 5: analyze names the worst link" 'Worst: link [0-9]+ s[0-9.]+->s[0-9.]+ \(torus\) misses [0-9]+ of' "$T_TMP/a2"
if grep -q '"overflowed":' "$T_TMP/def/analysis.json"; then t_fail "default: no link misses packets"
else t_ok "default: no link misses packets"; fi
"$HOPSCOPE" render "$T_TMP/b5" -q
t_grep "--bits 5: the report says it" 'class="caveat"><b>Measurement:</b> WARNING: [0-9]+ of [0-9]+ monitored packets' "$T_TMP/b5/report.html"
# the overflowed records are those whose field holds 2^3 - 1 in the hop bits
# (records.bin: 40-byte header, 40-byte records, field at offset 24)
n=$(od -An -v -t u1 -j 40 -w40 "$T_TMP/b5/records.bin" | awk '{ if ($25 % 8 == 7) n++ } END { print n + 0 }')
t_eq "--bits 5: overflowed records = the count" "$ovf" "$n"

# sampled monitoring: 30% of the messages; estimates scaled, sampling said
for seed in 1 2 3; do
    "$HOPSCOPE" gen halo3d --ranks 96 --iters 4 --monitor 0.3 --seed $seed -o "$T_TMP/Ts$seed" --quiet
    "$HOPSCOPE" simulate --topo torus:6x4x4 -i "$T_TMP/Ts$seed" --map random -o "$T_TMP/m$seed" \
        --quiet 2> /dev/null
    "$HOPSCOPE" analyze "$T_TMP/m$seed" -q
    J="$T_TMP/m$seed/analysis.json"
    t_eq "monitor 0.3 seed $seed: monitored_fraction" 0.3 "$(jv monitored_fraction "$J")"
    # 2304 messages of 32 KiB, each 8 data packets plus its RTS and CTS (one
    # 64-byte packet each, sampled with their message): the bytes over all
    # packets (monitored / p), at most the MTU; 8 x (all packets / data
    # packets) packets per sampled message
    r=$(awk -v m="$(jv packets_monitored "$J")" -v bpp="$(jv bytes_per_packet "$J")" \
            -v n="$(jv msg_packets "$J")" 'BEGIN {
            tot = m / 0.3; eb = 2304 * 32768 / tot; en = 8 * tot / 18432;
            ok = bpp <= 4096 && (bpp - eb) ^ 2 < (1e-5 * eb) ^ 2 && (n - en) ^ 2 < (1e-5 * en) ^ 2;
            printf "%s bytes_per_packet %s (expected %.6g) msg_packets %s (expected %.6g)",
                   ok ? "ok" : "bad", bpp, eb, n, en }')
    case "$r" in ok*) t_ok "monitor 0.3 seed $seed: packet size from all packets ($r)" ;;
                 *) t_fail "monitor 0.3 seed $seed: packet size from all packets" "$r" ;; esac
    t_eq "monitor 0.3 seed $seed: not exact" false "$(jv traffic_exact "$J")"
    # all packets estimated as monitored / p, within 4 SE of the truth (three
    # checks: a false alarm has probability < 0.02%), SE from whole-message
    # sampling: sqrt((1 - p) / p^2 * 10 * monitored), 10 packets (8 data,
    # RTS, CTS) sampled together.  Seed 1 draws 635 monitored messages of
    # 2304 against 691 +- 22 expected: z near -2.6.
    r=$(awk -v m="$(jv packets_monitored "$J")" -v est="$(jv packets_total "$J")" \
            -v tru="$(jv packets_total_truth "$J")" 'BEGIN {
            se = sqrt(0.7 / 0.09 * 10 * m); z = (est - tru) / se;
            printf "%s z=%.2f est=%s truth=%s", (z < 4 && z > -4 && m > 0) ? "ok" : "bad", z, est, tru }')
    case "$r" in ok*) t_ok "monitor 0.3 seed $seed: total packets unbiased ($r)" ;;
                 *) t_fail "monitor 0.3 seed $seed: total packets unbiased" "$r" ;; esac
done
"$HOPSCOPE" analyze "$T_TMP/m1" > "$T_TMP/a3"
t_grep "monitor 0.3: analyze says what was sampled" 'Sampled: each message carried the field with probability 0.3' "$T_TMP/a3"
t_grep "monitor 0.3: in-band line shows p" 'packets monitored \(p = 0.3 per message\)' "$T_TMP/a3"
"$HOPSCOPE" simulate --topo torus:6x4x4 -i "$T_TMP/Tm" --map random -o "$T_TMP/mm" > "$T_TMP/s4" 2>&1
t_grep "monitor 0.3: simulate shows the probability" 'probability 0.3 per message' "$T_TMP/s4"
t_grep "monitor 0.3: manifest records it" '"monitor_probability": *0.3' "$T_TMP/mm/manifest.json"
exit $t_failed
