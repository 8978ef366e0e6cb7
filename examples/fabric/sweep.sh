#!/bin/sh
# Latency versus offered load: runs `hopscope simulate --tsv` once per load
# and prints a markdown table.
#   examples/fabric/sweep.sh [-b BUILD] TOPO TRAFFIC "LOADS" [simulate options...]
# e.g. examples/fabric/sweep.sh fattree:k=16,n=2 uniform "0.1 0.3 0.5 0.7 0.9 1.0"
set -eu
BUILD=build
if [ "${1:-}" = "-b" ]; then BUILD=$2; shift 2; fi
if [ $# -lt 3 ]; then
    echo "usage: $0 [-b BUILD] TOPO TRAFFIC \"LOADS\" [simulate options...]" >&2
    exit 2
fi
topo=$1 traffic=$2 loads=$3
shift 3
HOPSCOPE=$BUILD/bin/hopscope
echo "| offered load | accepted | latency mean | p50 | p99 | network p50 | not delivered |"
echo "|---|---|---|---|---|---|---|"
for l in $loads; do
    "$HOPSCOPE" simulate --topo "$topo" --traffic "$traffic" --load "$l" --tsv "$@" | tail -1 |
        awk -F'\t' '{ printf "| %s | %.3f | %.2f us | %.2f us | %.2f us | %.2f us | %s |\n",
                      $1, $3, $4/1000, $5/1000, $7/1000, $10/1000, $13 }'
done
