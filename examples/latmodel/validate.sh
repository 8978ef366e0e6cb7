#!/bin/sh
# Validation of the latency model from link counters (docs/latmodel.md,
# docs/validation.md "Latency model from link counters"): latency tests
# (ping-pong probes between random node pairs) under GPCNeT's congestors on
# a 64-node dragonfly like the reference's Cray Aries system and on a
# 64-node fat-tree; the model fitted on some runs and evaluated on held-out
# ones (other seeds, other congestors, another topology, adaptive routing),
# with the stall counters and then the in-band estimates as the congestion
# input.  Prints a markdown table: the fraction of measured latencies
# within 35% of the expected value, and Pearson's r (reference: 89%, 0.68),
# over all tests and over the congested ones (measured above 1.5 x the
# least latency of the same node pair).
#
# usage: examples/latmodel/validate.sh [BUILD] [WORKDIR]   (~1-3 min)
set -e
BUILD=${1:-build}
W=${2:-$(mktemp -d "${TMPDIR:-/tmp}/hs-latmodel.XXXXXX")}
H="$BUILD/bin/hopscope"
mkdir -p "$W"
DF=dragonfly:a=4,p=2,h=2,g=8        # 64 nodes, 8 groups of 4 routers
FT=fattree:k=8,n=2                  # 64 nodes
PAIRS=${PAIRS:-16}
ITERS=${ITERS:-150}
# random pairs only: on 64 nodes they include same-switch ones (1 in 8 on
# the fat-tree), and pairs on one switch are rarely congested
NEAR=${NEAR:-0}

collect() { # NAME TOPO BACKGROUND SEED
    [ -f "$W/$1/latency_tests.csv" ] ||
        "$H" latmodel collect --topo "$2" --background "$3" --seed "$4" --pairs "$PAIRS" \
            --near "$NEAR" --iters "$ITERS" --quiet -o "$W/$1"
}
for t in df ft; do
    [ $t = df ] && T=$DF || T=$FT
    [ $t = df ] && A="$DF,routing=ugal" || A="$FT,routing=adaptive"
    collect $t.train1 $T incast 1
    collect $t.train2 $T alltoall 2
    collect $t.seed3 $T incast 3
    collect $t.seed4 $T alltoall 4
    collect $t.rmai $T rma_incast 5
    collect $t.rmab $T rma_bcast 6
    collect $t.mixed $T mixed 7
    collect $t.ad.train1 $A incast 1
    collect $t.ad.train2 $A alltoall 2
    collect $t.ad.mixed $A mixed 7
done
collect df40.mixed dragonfly:a=4,p=2,h=2,g=5 mixed:frac=1 7   # another dragonfly: 40 nodes, 8 left free

ev() { # MODEL INPUT RUN... -> "tests | within | r"
    m=$1; in=$2; shift 2
    args=""
    for r in "$@"; do args="$args $W/$r"; done
    "$H" latmodel eval --model "$W/$m.json" --input "$in" $args |
        sed -n -e 's/^tests \([0-9]*\)  within 35%: \([0-9.]*\)%  Pearson r: \([-0-9.na]*\).*/\1 | \2% | \3/p' \
            -e 's/^congested tests.* \([0-9]*\)  within 35%: \([0-9.]*\)%  Pearson r: \([-0-9.na]*\).*/\1 | \2% | \3/p' |
        paste -s -d '#' | sed 's/#/ | /'
}
fit() { # MODEL INPUT CLASSES RUN...
    m=$1; in=$2; cl=$3; shift 3
    args=""
    for r in "$@"; do args="$args $W/$r"; done
    "$H" latmodel fit --input "$in" --classes "$cl" -o "$W/$m.json" $args > "$W/$m.txt"
}

echo "| topology | congestion input | model | evaluated on | tests | within 35% | Pearson r | congested tests | within 35% | Pearson r |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for in in stall inband inband-run; do
    for t in df ft; do
        [ $t = df ] && TN="dragonfly 64 (min)" || TN="fat-tree 64 (D-mod-K)"
        fit $t.$in.auto $in auto $t.train1 $t.train2
        fit $t.$in.pooled $in pooled $t.train1 $t.train2
        grep -q '"by_class": true' "$W/$t.$in.auto.json" && cls="link classes" || cls="one class"
        echo "| $TN | $in | auto ($cls) | training runs (incast, alltoall) | $(ev $t.$in.auto $in $t.train1 $t.train2) |"
        echo "| $TN | $in | auto | other seeds (incast, alltoall) | $(ev $t.$in.auto $in $t.seed3 $t.seed4) |"
        echo "| $TN | $in | auto | other congestors (rma_incast, rma_bcast, mixed) | $(ev $t.$in.auto $in $t.rmai $t.rmab $t.mixed) |"
        [ $t = df ] && o=ft || o=df
        [ $t = df ] && ON="fat-tree 64" || ON="dragonfly 64"
        echo "| $TN | $in | pooled | other topology: $ON, mixed | $(ev $t.$in.pooled $in $o.mixed) |"
        [ $t = df ] && echo "| $TN | $in | auto | other dragonfly (40 nodes), mixed | $(ev $t.$in.auto $in df40.mixed) |"
        [ $t = df ] && AN="UGAL" || AN="adaptive"
        echo "| $TN | $in | auto | $AN routing, mixed (minimal paths assumed) | $(ev $t.$in.auto $in $t.ad.mixed) |"
        fit $t.ad.$in $in auto $t.ad.train1 $t.ad.train2
        echo "| $TN, $AN | $in | auto, fitted on $AN runs | $AN routing, mixed | $(ev $t.ad.$in $in $t.ad.mixed) |"
    done
done
echo
echo "models and fits: $W/*.json, $W/*.txt"
