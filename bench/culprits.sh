#!/bin/sh
# bench/culprits.sh BUILD OUT.md: the time `hopscope culprits` takes on
# 1,000 runs x 19 features (examples/culprits/synthetic.awk: two culprits,
# 17 noise features, seed 1), the issue-13 figure:
#   model      the seeded 2/3-1/3 split's model, permutation importance (19
#              features x 5 shuffles of the held-out runs) and the 5-fold
#              cross validation: 7 GBRT fits of 200 rounds, depth 4
#              (--no-greedy --exhaustive-max 0 --quantiles none)
#   default    the command's defaults: the above, the greedy forward search
#              (10 steps: 19 + 18 + ... + 10 = 145 subsets x 3 folds = 435
#              fits, and one held-out fit per step) and two quantile models
#   exhaustive the exhaustive search over 8 of the features (255 subsets x 3
#              folds = 765 fits), with --jobs 1 and --jobs 2 (fork)
# Wall and user CPU seconds of the whole process (/usr/bin/time); median of
# RUNS (3) runs for `model`, one run each for the longer ones (RUNS_LONG).
# The machine is shared: the wall time of --jobs 2 shows the speed-up only
# when the second core is idle; its user time shows the work is the same.
set -u
BUILD=$1
OUT=$2
H="$BUILD/bin/hopscope"
RUNS=${RUNS:-3}
RUNS_LONG=${RUNS_LONG:-1}
[ -x /usr/bin/time ] || { echo "bench/culprits: needs /usr/bin/time (Debian package time)" >"$OUT"; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-culprits.XXXXXX")
trap 'rm -rf "$W"' EXIT
awk -v runs=1000 -v noise=17 -v seed=1 -f examples/culprits/synthetic.awk >"$W/runs.csv"
if ! "$H" culprits "$W/runs.csv" -o "$W/o" --rounds 1 --no-greedy --exhaustive-max 0 \
        --quantiles none -q 2>"$W/err"; then
    { echo "bench/culprits: hopscope culprits failed:"; cat "$W/err"; } >"$OUT"
    exit 1
fi
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# measure NAME REPEATS ARGS...: "wall user" medians into $W/NAME
measure() {
    name=$1; n=$2; shift 2
    : >"$W/$name.raw"
    for i in $(seq "$n"); do
        /usr/bin/time -f "%e %U" -o "$W/t" "$H" culprits "$W/runs.csv" -o "$W/o" -q "$@" || exit 1
        cat "$W/t" >>"$W/$name.raw"
    done
    echo "$(cut -d' ' -f1 "$W/$name.raw" | median) $(cut -d' ' -f2 "$W/$name.raw" | median)" >"$W/$name"
}
EIGHT=f_links_max,f_stalls_avg,f_noise1,f_noise2,f_noise3,f_noise4,f_noise5,f_noise6
measure model "$RUNS" --no-greedy --exhaustive-max 0 --quantiles none
measure default "$RUNS_LONG"
measure exh1 "$RUNS_LONG" --features "$EIGHT" --no-greedy --quantiles none --jobs 1
measure exh2 "$RUNS_LONG" --features "$EIGHT" --no-greedy --quantiles none --jobs 2
"$H" culprits "$W/runs.csv" -o "$W/o" --no-greedy --exhaustive-max 0 --quantiles none >"$W/sum"
acc=$(grep -m1 'held-out' "$W/sum")
top=$(grep -A2 'feature importance' "$W/sum" | tail -2 | awk '{print $2}' | tr '\n' ' ')
{
    echo "\`hopscope culprits\` on 1,000 runs x 19 features (examples/culprits/synthetic.awk,"
    echo "seed 1; GBRT of 200 rounds, depth 4, XGBoost $(pkg-config --modversion xgboost 2>/dev/null),"
    echo "one thread per process).  Wall and user CPU seconds of the process; median of $RUNS"
    echo "runs for the model, $RUNS_LONG run(s) for the others."
    echo
    echo "| what | fits | wall | user CPU |"
    echo "|---|---|---|---|"
    set -- $(cat "$W/model");   echo "| model: split, permutation importance, 5-fold CV | 7 | $1 s | $2 s |"
    set -- $(cat "$W/default"); echo "| defaults: + greedy search (10 steps), 2 quantile models (each calibrated by 5 more fits) | 464 | $1 s | $2 s |"
    set -- $(cat "$W/exh1");    echo "| exhaustive search, 8 features, --jobs 1 | 765 + 7 | $1 s | $2 s |"
    set -- $(cat "$W/exh2");    echo "| exhaustive search, 8 features, --jobs 2 | 765 + 7 | $1 s | $2 s |"
    echo
    echo "The model's held-out accuracy on this table: $acc; the first two"
    echo "features by gain: $top(the two the time is made of)."
} >"$OUT"
