#!/bin/sh
# analyzer/ speed: 'hopscope analyze' on a run directory with 10^7 sampled
# records (256-node fat-tree, uniform traffic): route-aware decoding per
# phase and per window, the blind decoder beside it, flows, trees,
# diagnosis, ground-truth accuracy, analysis.json.  Target: < 10 s.
# Baselines in the same run: reading records.bin once (the I/O floor) and
# the blind decoder alone (NIC counters only).
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
RUNS=3
RUN=$BUILD/bench-results/analyze-run
N=10000000
SIM="--topo fattree:k=16,n=2 --load 0.5 --packets $N --records-cap $N --seed 1"

rm -rf "$RUN"
"$H" simulate $SIM -o "$RUN" --quiet

now() { date +%s.%N; }
# seconds for one command, output discarded
timed() {
    t0=$(now)
    "$@" > /dev/null
    t1=$(now)
    echo "$t1 $t0" | awk '{ printf "%.3f\n", $1 - $2 }'
}
: > "$OUT.raw"
for i in $(seq $RUNS); do
    echo "1 $(timed "$H" analyze "$RUN" -q)" >> "$OUT.raw"
    echo "2 $(timed "$H" analyze "$RUN" -q --no-windows)" >> "$OUT.raw"
    echo "3 $(timed "$H" analyze "$RUN" -q --decoder blind)" >> "$OUT.raw"
    echo "4 $(timed cat "$RUN/records.bin")" >> "$OUT.raw"
done
size=$(wc -c < "$RUN/analysis.json")
med() {
    awk -v k="$1" '$1 == k { n++; r[n] = $2 }
        END { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
              printf "%.3f %.3f %.3f\n", r[int((n + 1) / 2)], r[1], r[n] }' "$OUT.raw"
}
base=$(med 4 | cut -d' ' -f1)
{
    echo "10^7 records (one per monitored packet, 40 bytes each: records.bin is 400 MB), 256-node"
    echo "fat-tree (1024 links), uniform traffic at load 0.5, 4 KiB messages, seed 1, 6-bit field."
    echo "Wall time of the whole command (reading, checking every record, decoding, trees,"
    echo "diagnosis, accuracy, writing analysis.json of $size bytes); records.bin in the page cache."
    echo "Median of $RUNS runs (min-max in brackets).  Target: < 10 s."
    echo
    echo "| hopscope analyze | seconds | M records/s | vs reading records.bin |"
    echo "|---|---|---|---|"
    for k in 1 2 3 4; do
        case $k in
        1) label="default: route-aware per phase and window, blind beside it" ;;
        2) label="--no-windows" ;;
        3) label="--decoder blind (NIC counters only; records not decoded)" ;;
        4) label="baseline: cat records.bin > /dev/null" ;;
        esac
        set -- $(med $k)
        echo "$label|$1|$2|$3" | awk -F'|' -v n=$N -v base="$base" \
            '{ printf "| %s | %.2f [%.2f-%.2f] | %.1f | %.1fx |\n", $1, $2, $3, $4, n / $2 / 1e6, $2 / base }'
    done
    echo
    echo "Commands: \`hopscope simulate $SIM -o RUN\`, then \`hopscope analyze RUN -q\` (and the variants above)."
} > "$OUT"
rm -f "$OUT.raw"
rm -rf "$RUN"
