#!/bin/sh
# `hopscope topo SPEC` (the summary: sizes, diameter, bisection) for every
# regular family at up to 1M nodes, against building the same network's
# full link table (`hopscope topo --path 0:1 SPEC`, no summary) in the same
# run.  The summary comes from the family's parameters (fabric/topo*.c,
# hs_topo_describe): before, it built the graph and ran a BFS from every
# switch, which took over 100 s for torus:32x32x32.  Target: < 1 s each.
# Median of 3 runs for the summary; one build (it is the slow baseline).
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope

secs() { # args...: wall seconds and peak RSS KB of one run
    /usr/bin/time -f "%e %M" "$H" "$@" 2>&1 >/dev/null | tail -1
}

{
for spec in torus:32x32x32 torus:100x100x100 torus:1024x1024 mesh:1000x1000 \
            fattree:k=128,n=3 fattree:k=16,n=5 dragonfly:a=32,p=16,h=16,g=513 \
            dragonfly:a=64,p=32,h=32,g=512; do
    nodes=$("$H" topo "$spec" | sed -n 's/^nodes *//p')
    diam=$("$H" topo "$spec" | sed -n 's/^diameter *\([0-9]*\).*/\1/p')
    a=$(secs topo "$spec"); b=$(secs topo "$spec"); c=$(secs topo "$spec")
    med=$(printf '%s\n%s\n%s\n' "$a" "$b" "$c" | sort -n | sed -n 2p)
    full=$(secs topo --path 0:1 "$spec")
    printf '%s\t%s\t%s\t%s\t%s\n' "$spec" "$nodes" "$diam" "$med" "$full"
done
} > "$OUT.tsv"
{
    echo "Wall time and peak RSS (\`/usr/bin/time\`) of the summary, median of 3, against one"
    echo "build of the full link table of the same network.  Target: < 1 s up to 1M nodes."
    echo
    echo "| topology | nodes | diameter | summary | summary RSS | full build | full build RSS |"
    echo "|---|---|---|---|---|---|---|"
    awk -F'\t' '{
        split($4, s, " "); split($5, f, " ")
        printf "| `%s` | %s | %s | %.2f s | %.0f MB | %.2f s | %.0f MB |\n", $1, $2, $3, s[1], s[2] / 1024, f[1], f[2] / 1024 }' "$OUT.tsv"
    echo
    echo "Command: \`/usr/bin/time -f '%e %M' hopscope topo SPEC\` (and \`topo --path 0:1 SPEC\`)."
} > "$OUT"
rm -f "$OUT.tsv"
