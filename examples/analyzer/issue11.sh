#!/bin/sh
# Reproduces the "judging by standard error" figures of docs/validation.md
# (issue 11, sections 3-5): each case is simulated once, then analysed by
# the hopscope under test (BUILD) and, when BEFORE names another hopscope
# binary, by that one too; per analysis: links whose true congested
# fraction (ground truth) reaches the threshold, the analyzer's verdicts
# against truth, and the findings.  Markdown on stdout.
#   examples/analyzer/issue11.sh [BUILD [BEFORE]]     (about a minute on 2 cores)
# Needs python3 (to read analysis.json).  Deterministic.
set -eu
BUILD=${1:-build}
H=$BUILD/bin/hopscope
BEFORE=${2:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/hs-issue11.XXXXXX")
trap 'rm -rf "$T"' EXIT

verdicts() { # analysis.json -> "truly | right/wrong | right/wrong | n (t) | findings"
    python3 - "$1" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); thr = a['params']['cf_threshold']
pools = a.get('judgement', {}).get('pools', [])
tp = fp = cok = cbad = und = undt = truly = 0
for l in a['links']:
    t = l.get('truth')
    if not t or t.get('packets', 0) <= 0 or l.get('traffic', 0) == 0:
        continue
    tc = t['cf'] >= thr
    truly += tc
    v = l.get('verdict')
    if l.get('is_congested'):
        v = 'congested'
    elif v is None:      # analyzers before the verdicts: status only
        v = 'clear' if l['status'] == 'ok' else 'undecided'
    elif v == 'undecided' and 'pool' in l and pools[l['pool']]['verdict'] == 'clear':
        v = 'clear'
    if v == 'congested':
        tp += tc; fp += not tc
    elif v == 'clear':
        cok += not tc; cbad += tc
    else:
        und += 1; undt += tc
kinds = ', '.join(d['kind'] for d in a['diagnosis'])
print(f"{truly} | {tp} / {fp} | {cok} / {cbad} | {und} ({undt}) | {kinds}")
PY
}

row() { # name, simulate args...
    name=$1; shift
    rm -rf "$T/run"
    timeout 300 "$H" simulate "$@" -o "$T/run" --quiet
    "$H" analyze "$T/run" -o "$T/after.json" > /dev/null
    if [ -n "$BEFORE" ]; then
        "$BEFORE" analyze "$T/run" -o "$T/before.json" > /dev/null
        echo "| $name | before | $(verdicts "$T/before.json") |"
    fi
    echo "| $name | after | $(verdicts "$T/after.json") |"
}

"$H" gen halo3d --ranks 36 --iters 20 --size 2K --compute 10us -o "$T/h36" --quiet
"$H" gen halo3d --ranks 64 --iters 3 --size 32K -o "$T/h64s" --quiet
"$H" gen halo3d --ranks 64 --iters 20 --size 32K -o "$T/h64" --quiet
"$H" gen halo3d --ranks 64 --iters 100 --size 32K -o "$T/h64l" --quiet
"$H" gen pingpong --ranks 64 --iters 50 --size 64K -o "$T/pp" --quiet

echo "| case | analyzer | links truly CF >= 0.25 | called congested: right / wrong | called clear: right / wrong | cannot judge (truly congested) | findings |"
echo "|---|---|---|---|---|---|---|"
row "halo3d 36 ranks, dragonfly, random:1, incast background" \
    --topo dragonfly:a=4,p=4,h=2,g=5 -i "$T/h36" --map random:1 --background incast:frac=0.5
row "halo3d 64 ranks, 3 iterations, tapered fat-tree, linear" \
    --topo fattree:k=8,n=2,taper=4 -i "$T/h64s"
row "halo3d 64 ranks, dragonfly UGAL, 6 bits" \
    --topo dragonfly:a=4,p=4,h=2,g=5,routing=ugal -i "$T/h64" --bits 6
row "halo3d 64 ranks x 100, dragonfly UGAL, 6 bits" \
    --topo dragonfly:a=4,p=4,h=2,g=5,routing=ugal -i "$T/h64l" --bits 6
row "halo3d 64 ranks x 100, dragonfly UGAL, 8 bits" \
    --topo dragonfly:a=4,p=4,h=2,g=5,routing=ugal -i "$T/h64l" --bits 8
row "halo3d 64 ranks, dragonfly Valiant" \
    --topo dragonfly:a=4,p=4,h=2,g=5,routing=valiant -i "$T/h64"
row "halo3d 64 ranks alone, torus 4x4x4" \
    --topo torus:4x4x4 -i "$T/h64"
row "ping-pong 64 ranks, torus 4x4x4 p=2, random:1" \
    --topo torus:4x4x4,p=2 -i "$T/pp" --map random:1
