#!/bin/sh
# Reproduces the fabric figures of docs/validation.md (markdown on stdout).
#   examples/fabric/validate.sh [BUILD]        (a few minutes on 2 cores)
# Needs the hopscope command and build/bench/fabric_validate:
#   make && make build/bench/fabric_validate
set -eu
BUILD=${1:-build}
V=$BUILD/bench/fabric_validate
S="examples/fabric/sweep.sh -b $BUILD"
[ -x "$V" ] || { echo "build $V first: make $V" >&2; exit 1; }
D="--duration 50us"

echo "### Zero-load latency"
echo
echo '`'"$V zero"'`: one 4 KiB message between the first and the last node of an idle network.'
echo
$V zero
echo
echo "### Uniform random traffic on full-bisection fat-trees"
echo
for t in fattree:k=16,n=2 fattree:k=32,n=2; do
    echo '`'"$S $t uniform \"0.1 0.3 0.5 0.55 0.6 0.7 0.8 1.0\" $D"'`'
    echo
    $S $t uniform "0.1 0.3 0.5 0.55 0.6 0.7 0.8 1.0" $D
    echo
done
echo "### Tapered 2:1 fat-tree"
echo
for t in fattree:k=16,n=2 fattree:k=16,n=2,taper=2; do
    for p in shift:16 uniform; do
        echo '`'"$S $t $p \"0.3 0.4 0.5 0.6 0.8 1.0\" $D"'`'
        echo
        $S $t $p "0.3 0.4 0.5 0.6 0.8 1.0" $D
        echo
    done
done
echo "### Dragonfly under adversarial group-shift traffic"
echo
for r in min valiant ugal ugal-g; do
    t=dragonfly:a=4,p=2,h=2,g=9,routing=$r
    echo '`'"$S $t groupshift \"0.1 0.2 0.3 0.4 0.5 0.7 1.0\" $D"'`'
    echo
    $S $t groupshift "0.1 0.2 0.3 0.4 0.5 0.7 1.0" $D
    echo
done
for r in min valiant ugal ugal-g; do
    t=dragonfly:a=8,p=4,h=4,g=33,routing=$r
    echo '`'"$S $t groupshift \"0.2 0.4 1.0\" --duration 20us"'`'
    echo
    $S $t groupshift "0.2 0.4 1.0" --duration 20us
    echo
done
echo "### Incast: congestion tree, victims, unbounded-buffer control"
echo
echo '`'"$V incast"'`'
echo
$V incast
echo
echo "### In-band estimates against ground truth"
echo
echo '`'"$V converge"'`'
echo
$V converge
