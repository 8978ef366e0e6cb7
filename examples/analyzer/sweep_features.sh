#!/bin/sh
# How far the in-band field alone supports the culprit features
# (docs/validation.md, "Sweep features"): a 256-rank 3D halo exchange swept
# over 24 random mappings, with and without GPCNeT-style background jobs,
# on a 144-node fat-tree tapered 2:1 (the job on 64 nodes, the background on half of the others); then, across the 48 runs, Spearman's
# rank correlation between each in-band feature and its ground-truth
# counterpart, and of both with the run time.  Deterministic: the same
# build prints the same table.
#   examples/analyzer/sweep_features.sh [BUILD] [WORKDIR]
set -eu
BUILD=${1:-build}
H=$BUILD/bin/hopscope
W=${2:-$(mktemp -d "${TMPDIR:-/tmp}/hopscope-sweepfeat.XXXXXX")}
"$H" gen halo3d --ranks 256 --iters 20 --size 64K -o "$W/halo" > /dev/null
"$H" sweep -i "$W/halo" --topo fattree:k=12,n=2,taper=2 --ppn 4 --random 24 \
    --background none --background mixed:frac=0.5 -q -o "$W/sweep" > /dev/null
CSV=$W/sweep/sweep.csv

# spearman A B [BACKGROUND]: rank correlation of two columns (average ranks
# for ties), over the runs with that background (default: all)
spearman() {
    awk -F, -v a="$1" -v b="$2" -v bg="${3:-}" '
        NR == 1 { for (i = 1; i <= NF; i++) { if ($i == a) ca = i; if ($i == b) cb = i }; next }
        bg != "" && $3 != bg { next }
        { n++; x[n] = $ca + 0; y[n] = $cb + 0 }
        function rank(v, r,   i, j, k, t, idx, m) {
            for (i = 1; i <= n; i++) idx[i] = i
            for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                if (v[idx[j]] < v[idx[i]]) { t = idx[i]; idx[i] = idx[j]; idx[j] = t }
            for (i = 1; i <= n; i = j) {
                for (j = i; j <= n && v[idx[j]] == v[idx[i]]; j++) ;
                m = (i + j - 1) / 2
                for (k = i; k < j; k++) r[idx[k]] = m
            }
        }
        END {
            if (!ca || !cb) { print "no column " (ca ? b : a); exit 1 }
            rank(x, rx); rank(y, ry)
            for (i = 1; i <= n; i++) { mx += rx[i]; my += ry[i] }
            mx /= n; my /= n
            for (i = 1; i <= n; i++) { sxy += (rx[i] - mx) * (ry[i] - my); sxx += (rx[i] - mx) ^ 2; syy += (ry[i] - my) ^ 2 }
            if (sxx == 0 || syy == 0) print "const"; else printf "%.3f\n", sxy / sqrt(sxx * syy)
        }' "$CSV"
}

echo "runs: $(($(wc -l < "$CSV") - 1))"
echo
echo "| feature (truth / in-band) | rho(in-band, truth) | ... without background | rho(truth, time_s) | rho(in-band, time_s) |"
echo "|---|---|---|---|---|"
for p in net_bytes_avg:net_bytes_avg net_bytes_max:net_bytes_max up1_bytes_ao:up1_bytes_ao \
         down1_bytes_to:down1_bytes_to net_cf_avg:net_cf_avg up1_cf_max:up1_cf_max \
         net_stall_ao:net_cong_ao up1_stallpp_avg:up1_cf_avg inj_stall_avg:inj_cong_avg \
         dil_avg:dil_avg cf_app:cf_app links_congested:links_congested; do
    t=f_truth_${p%%:*}; i=f_inband_${p#*:}
    echo "| \`$t\` / \`$i\` | $(spearman "$t" "$i") | $(spearman "$t" "$i" none) | $(spearman "$t" time_s) | $(spearman "$i" time_s) |"
done
echo
echo "| truth only | rho(truth, time_s) |"
echo "|---|---|"
for t in f_truth_injq_max f_truth_dil_max f_truth_cf_all f_truth_net_bytes_nao; do
    echo "| \`$t\` | $(spearman "$t" time_s) |"
done
