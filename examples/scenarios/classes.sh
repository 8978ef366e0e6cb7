#!/bin/sh
# Groups the strict misses of a scored draw (results.tsv of run.sh -k or
# rescore.sh) by class: the causes missed and the causes added against the
# truth's set, "undecided alone" when the analyzer abstained, and whether
# the answer is right with the truth's undetermined causes taken either way.
# One line per class, most frequent first: count, class, seeds.
#
#   examples/scenarios/classes.sh RESULTS.tsv
#
# results.tsv columns used: 1 seed, 2 expected, 4 reported, 6 fully right
# (strict), 8 status (only "ok" rows are scored), 18 fully right with the
# undetermined causes either way.
set -u
[ $# -eq 1 ] && [ -s "$1" ] || { sed -n 8p "$0" >&2; exit 2; }
awk -F'\t' '
function split_set(s, a,    n, i, p) {
    for (i in a) delete a[i]
    if (s == "none" || s == "-" || s == "") return
    n = split(s, p, "+")
    for (i = 1; i <= n; i++) a[p[i]] = 1
}
function diff(x, y,    k, c, out) {   # causes in x not in y, in a fixed order
    out = ""
    for (c = 1; c <= 3; c++) {
        k = c == 1 ? "pattern" : c == 2 ? "mapping" : "interference"
        if ((k in x) && !(k in y)) out = out (out == "" ? "" : "+") k
    }
    return out
}
$8 == "ok" && $6 == "0" {
    if ($4 == "abstain") {
        k = "undecided alone"
    } else {
        split_set($2, E); split_set($4, R)
        m = diff(E, R); x = diff(R, E)
        k = (m != "" ? "miss " m : "") (m != "" && x != "" ? ", " : "") (x != "" ? "extra " x : "")
    }
    if ($18 == "1") k = k " (right either way)"
    n[k]++
    s[k] = s[k] (s[k] == "" ? "" : " ") $1
}
END { for (k in n) printf "%d\t%s\t%s\n", n[k], k, s[k] }
' "$1" | sort -t "$(printf '\t')" -k1,1nr -k2,2
