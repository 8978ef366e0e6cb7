#!/bin/sh
# hopscope culprits end to end: a synthetic table of runs whose time is a
# known function of two features (examples/culprits/synthetic.awk) must
# name those two first; the outputs are byte-identical run to run; a
# second table tests the model on other runs; malformed tables are refused
# with file:line and the usage errors exit 2; the sanitized command reads
# good and bad tables without a sanitizer report.
. tests/integration/lib.sh
H="$HOPSCOPE"
HS="$BUILD/san/bin/hopscope"
T="$T_TMP"
TO="timeout 300"

awk -v runs=90 -v noise=6 -v seed=4 -f examples/culprits/synthetic.awk >"$T/a.csv"
awk -v runs=40 -v noise=6 -v seed=5 -f examples/culprits/synthetic.awk >"$T/b.csv"

t_check "help lists culprits" sh -c "'$H' help | grep -q culprits"
t_check "culprits --help" sh -c "'$H' culprits --help | grep -q 'rank correlation'"

# mk/optional.mk's test for HS_HAVE_XGBOOST
if ! pkg-config --exists xgboost 2>/dev/null; then
    echo "# skip: hopscope built without XGBoost (libxgboost-dev): only the refusal is tested"
    $TO "$H" culprits "$T/a.csv" -o "$T/o" >"$T/out" 2>&1
    t_eq "without XGBoost: exit 1" 1 $?
    t_grep "without XGBoost: names the package" "libxgboost-dev" "$T/out"
    exit $t_failed
fi

OPTS="--rounds 60 --exhaustive-max 4 --features f_links_max,f_stalls_avg,f_noise1,f_noise2"
$TO "$H" culprits "$T/a.csv" -o "$T/o1" $OPTS >"$T/sum1" 2>"$T/err"
t_eq "culprits runs" 0 $?
for f in culprits.json culprits.svg culprits.html; do
    t_check "writes $f" test -s "$T/o1/$f"
done
# the two culprits lead the importance list (gain order)
first=$(grep -o '"feature": "[a-z_0-9]*"' "$T/o1/culprits.json" | head -2 | sed 's/.*: //' | sort | tr '\n' ' ')
t_eq "the two culprits first" '"f_links_max" "f_stalls_avg" ' "$first"
t_grep "summary: held-out RCC and R^2" "held-out runs \(30 of 90\): RCC [0-9.]+  R\^2 [0-9.]+" "$T/sum1"
t_grep "summary: exhaustive search over 15 subsets" "exhaustive search: 15 subsets" "$T/sum1"
t_grep "svg is an svg" "^<svg xmlns" "$T/o1/culprits.svg"
t_eq "greedy search: one step per feature (fewer than 10)" 4 "$(grep -c '"added"' "$T/o1/culprits.json")"
$TO "$H" culprits "$T/a.csv" -o "$T/o5" --rounds 20 --exhaustive-max 0 --quantiles none \
    --greedy-steps 2 -q
t_eq "--greedy-steps 2: two steps" 2 "$(grep -c '"added"' "$T/o5/culprits.json")"

# determinism: the same command twice gives the same bytes
mkdir -p "$T/keep"
cp "$T/o1/culprits.json" "$T/o1/culprits.svg" "$T/o1/culprits.html" "$T/keep/"
$TO "$H" culprits "$T/a.csv" -o "$T/o1" $OPTS --jobs 1 -q
$TO "$H" culprits "$T/a.csv" -o "$T/o1" $OPTS >/dev/null 2>&1
for f in culprits.json culprits.svg culprits.html; do
    t_check "$f byte-identical run to run" cmp "$T/keep/$f" "$T/o1/$f"
done
$TO "$H" culprits "$T/a.csv" -o "$T/o1" $OPTS --jobs 1 -q
t_check "one process or several: the same json" sh -c "grep -v '\"command\"' '$T/keep/culprits.json' >'$T/k1'; grep -v '\"command\"' '$T/o1/culprits.json' >'$T/k2'; cmp '$T/k1' '$T/k2'"

# --json prints what the file holds
$TO "$H" culprits "$T/a.csv" -o "$T/o1" $OPTS --json >"$T/stdout.json"
t_check "--json prints culprits.json" cmp "$T/stdout.json" "$T/o1/culprits.json"

# another scale: trained on a, tested on b
$TO "$H" culprits --train "$T/a.csv" --test "$T/b.csv" -o "$T/o2" --rounds 60 --no-greedy \
    --exhaustive-max 0 --quantiles none >"$T/sum2" 2>&1
t_eq "generalisation runs" 0 $?
t_grep "generalisation in the summary" "tested on 40 others: RCC" "$T/sum2"
t_grep "generalisation in the json" '"test_runs": 40' "$T/o2/culprits.json"
t_grep "generalisation in the page" "another scale" "$T/o2/culprits.html"
# --per: the response fitted per unit of a column, figures in its units
$TO "$H" culprits --train "$T/a.csv" --test "$T/b.csv" -o "$T/o6" --rounds 60 --no-greedy \
    --exhaustive-max 0 --quantiles 0.5 --per f_links_max >"$T/sum6" 2>&1
t_eq "--per runs" 0 $?
t_grep "--per in the summary" "response time_s \(fitted per f_links_max\)" "$T/sum6"
t_grep "--per in the json" '"per": "f_links_max"' "$T/o6/culprits.json"
t_grep "no --per: null in the json" '"per": null' "$T/o2/culprits.json"
t_grep "quantile models calibrated by default" '"method": "pinball loss, custom objective, leaves at the residuals. quantile, calibrated out of fold"' "$T/o6/culprits.json"
$TO "$H" culprits "$T/a.csv" -o "$T/o7" --rounds 60 --no-greedy --exhaustive-max 0 --quantiles 0.9 \
    --no-quantile-calibration --quantile-min-leaf 7 >/dev/null 2>&1
t_eq "--no-quantile-calibration runs" 0 $?
t_eq "not calibrated: min_leaf 7, shift 0" '"min_leaf": 7, "shift": 0,' "$(tr -d '\n' < "$T/o7/culprits.json" | grep -o '"min_leaf": 7, *"shift": 0,' | tr -s ' ')"

# refusals
printf 'run,time_s,f_x\n1,2,3\n2,3\n' >"$T/short.csv"
$TO "$H" culprits "$T/short.csv" -o "$T/o3" >"$T/out" 2>&1
t_eq "short row: exit 1" 1 $?
t_grep "short row: file:line" "short.csv:3: 2 fields, the header has 3" "$T/out"
sed '5s/,0\.[0-9]*$/,oops/' "$T/a.csv" >"$T/word.csv"
$TO "$H" culprits "$T/word.csv" -o "$T/o3" >"$T/out" 2>&1
t_eq "word in a feature: exit 1" 1 $?
t_grep "word in a feature: file:line" "word.csv:5: column f_noise6: 'oops' is not a plain decimal number" "$T/out"
$TO "$H" culprits "$T/missing.csv" >"$T/out" 2>&1
t_eq "missing file: exit 1" 1 $?
$TO "$H" culprits "$T/a.csv" --target nope -o "$T/o3" >"$T/out" 2>&1
t_grep "unknown target named" "no column 'nope'" "$T/out"
$TO "$H" culprits "$T/a.csv" --rounds 0 >"$T/out" 2>&1
t_eq "bad --rounds: exit 2" 2 $?
$TO "$H" culprits >"$T/out" 2>&1
t_eq "no table: exit 2" 2 $?
$TO "$H" culprits "$T/a.csv" "$T/b.csv" >"$T/out" 2>&1
t_eq "two tables: exit 2" 2 $?
$TO "$H" culprits "$T/a.csv" --quantiles 0.1,1.5 >"$T/out" 2>&1
t_eq "bad --quantiles: exit 2" 2 $?

# the sanitized command on a good and on a bad table
if [ -x "$HS" ]; then
    for c in "good 0 $T/a.csv" "bad 1 $T/word.csv" "short 1 $T/short.csv"; do
        set -- $c
        $TO "$HS" culprits "$3" -o "$T/o4" --rounds 20 --exhaustive-max 0 --search-folds 2 \
            -q >"$T/out" 2>"$T/err"
        rc=$?
        if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T/err"; then
            t_fail "asan: culprits $1" "$(grep -E 'ERROR:|runtime error:|#[0-9] ' "$T/err" | head -8)"
        else
            t_eq "asan: culprits $1 (exit $2)" "$2" "$rc"
        fi
    done
fi
exit $t_failed
