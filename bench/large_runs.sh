#!/bin/sh
# Large networks end to end: `simulate --packets 2000` then `analyze` (and
# `render`) on a 32K-node torus and on the 16K-node dragonfly of
# fabric_memory.sh.  Their routes are recomputed by the analyzer from the
# topology spec (docs/formats.md, "Routes"); the baseline in the same run
# is the old way, forwarding tables in routes.bin (--route-tables), on a
# torus 8 times smaller (the 32K-node tables are 5.4 GB).  Targets: torus
# simulate + analyze < 10 s and < 2 GB.  Median of RUNS runs, peak RSS
# from /usr/bin/time (the largest of the runs).
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
RUNS=3
W=$BUILD/bench-results/large-runs
rm -rf "$W"
mkdir -p "$W"

# one: label topo extra-simulate-args...: RUNS x (simulate, analyze, render)
one() {
    label=$1; topo=$2; shift 2
    for i in $(seq $RUNS); do
        rm -rf "$W/run"
        /usr/bin/time -f "%e %M" -o "$W/t" "$H" simulate --topo "$topo" --packets 2000 --seed 1 \
            "$@" -o "$W/run" > /dev/null
        echo "$label	simulate	$(cat "$W/t")" >> "$W/raw"
        /usr/bin/time -f "%e %M" -o "$W/t" "$H" analyze "$W/run" -q
        echo "$label	analyze	$(cat "$W/t")" >> "$W/raw"
        /usr/bin/time -f "%e %M" -o "$W/t" "$H" render "$W/run" -q
        echo "$label	render	$(cat "$W/t")" >> "$W/raw"
    done
    sz=$(du -sk "$W/run" | cut -f1)
    rt=$(if [ -e "$W/run/routes.bin" ]; then du -k "$W/run/routes.bin" | cut -f1; else echo 0; fi)
    aj=$(du -k "$W/run/analysis.json" | cut -f1)
    echo "$label	$sz	$rt	$aj" >> "$W/sizes"
}
: > "$W/raw"; : > "$W/sizes"
one "torus:32x32x32 (32768 nodes, 262144 links)" torus:32x32x32
one "dragonfly:a=16,p=8,h=8,g=129,routing=ugal (16512 nodes, 80496 links)" \
    dragonfly:a=16,p=8,h=8,g=129,routing=ugal
one "baseline: torus:16x16x16 with --route-tables" torus:16x16x16 --route-tables
one "torus:16x16x16, routes recomputed" torus:16x16x16

{
    echo "End to end on large networks, 2000 messages of 4 KiB (uniform traffic, load 0.5,"
    echo "seed 1), every one monitored and recorded.  Wall time and peak RSS of each command"
    echo "(\`/usr/bin/time\`): median of $RUNS runs [min-max] and the largest RSS.  The routes"
    echo "of these families are not stored but recomputed by the analyzer from the topology"
    echo "spec, for the (source switch, destination) pairs in the records; the baseline rows"
    echo "store them (\`--route-tables\`, the only way before run directory version 2) on a"
    echo "torus 8 times smaller.  Targets: torus:32x32x32 simulate + analyze < 10 s, < 2 GB."
    echo
    echo "| network | command | seconds | peak RSS |"
    echo "|---|---|---|---|"
    awk -F'\t' '{ split($3, v, " "); k = $1 "\t" $2; if (!(k in n)) order[++no] = k
                  n[k]++; t[k, n[k]] = v[1]; if (v[2] > m[k]) m[k] = v[2] }
        END { for (o = 1; o <= no; o++) { k = order[o]; c = n[k]
                for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
                    if (t[k, j] < t[k, i]) { x = t[k, i]; t[k, i] = t[k, j]; t[k, j] = x }
                split(k, kk, "\t")
                printf "| %s | %s | %.2f [%.2f-%.2f] | %.0f MB |\n", kk[1], kk[2],
                       t[k, int((c + 1) / 2)], t[k, 1], t[k, c], m[k] / 1024 } }' "$W/raw"
    echo
    echo "| network | run directory | of it routes.bin | analysis.json |"
    echo "|---|---|---|---|"
    awk -F'\t' '{ printf "| %s | %.1f MB | %.1f MB | %.1f MB |\n", $1, $2 / 1024, $3 / 1024, $4 / 1024 }' "$W/sizes"
    echo
    echo "Commands: \`hopscope simulate --topo SPEC --packets 2000 --seed 1 -o RUN\`, \`hopscope analyze RUN -q\`, \`hopscope render RUN -q\`."
} > "$OUT"
rm -rf "$W"
