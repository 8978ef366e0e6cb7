#!/bin/sh
# Re-analyses the kept run directories of a draw (run.sh -k) with another
# build, keeping the simulations and the truth labels: only `analyze` and
# the scorer run again.  For analyzer changes: a full redraw of 250 seeds
# re-simulates every attempt, this re-analyses the last attempt of each.
#
#   examples/scenarios/rescore.sh [-b BUILD] [-t SECONDS] DRAW OUTDIR [TITLE]
#
# DRAW is the -o directory of `run.sh -k`; writes OUTDIR/results.tsv,
# OUTDIR/cf.tsv, OUTDIR/report.md (printed too) and OUTDIR/changed.txt
# (the seeds whose answer changed: seed, expected, before -> after).
set -u
BUILD=build
TO=60
while [ $# -gt 0 ]; do
    case $1 in
        -b) BUILD=$2; shift 2 ;;
        -t) TO=$2; shift 2 ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n 7,11p "$0" >&2; exit 2; }
DRAW=$1 OUT=$2 TITLE=${3:-rescored $1}
H="$BUILD/bin/hopscope"
SC="$BUILD/tests/helpers/scenarios"
[ -x "$H" ] && [ -x "$SC" ] || { echo "rescore.sh: build first (make; make tests)" >&2; exit 2; }
[ -s "$DRAW/results.tsv" ] || { echo "rescore.sh: no $DRAW/results.tsv" >&2; exit 2; }
mkdir -p "$OUT"
: > "$OUT/results.tsv"
: > "$OUT/cf.tsv"
: > "$OUT/changed.txt"
TAB=$(printf '\t')
while IFS="$TAB" read -r seed exp prim rep top fully topr status relab rest; do
    a="$DRAW/s$seed/A"
    nrep=$rep ntop=$top nfully=$fully ntopr=$topr findings=
    # columns after relab: topo app map bg field findings seconds undetermined fullyu
    und=$(printf '%s\n' "$rest" | cut -f8)
    nfullyu=$(printf '%s\n' "$rest" | cut -f9)
    [ -n "$und" ] || und=none
    [ -n "$nfullyu" ] || nfullyu=$fully
    if [ -d "$a" ] && { [ "$status" = ok ] || [ "$status" = unlabelled ]; }; then
        timeout "$TO" "$H" analyze -q -o "$OUT/analysis.json" "$a" > /dev/null 2>&1; rc=$?
        if [ $rc -ne 0 ]; then
            status="analyze exit $rc (rescore)" nrep=- ntop=- nfully=0 nfullyu=0 ntopr=0 findings=-
        else
            cp "$OUT/analysis.json" "$a/analysis.json"
            if [ "$status" = unlabelled ]; then
                s=$("$SC" score "$a" none none | grep -v '^cf')
            else
                s=$("$SC" score "$a" "$exp" "$prim" "$und")
                printf '%s\n' "$s" | grep '^cf' >> "$OUT/cf.tsv"
            fi
            REPORTED=- TOP=- FULLY=0 FULLYU=0 TOPRIGHT=0 FINDINGS=-
            eval "$(printf '%s\n' "$s" | grep -v '^cf')"
            nrep=$REPORTED ntop=$TOP nfully=$FULLY nfullyu=$FULLYU ntopr=$TOPRIGHT findings=$FINDINGS
            [ "$status" = unlabelled ] && nfully=0 nfullyu=0 ntopr=0
        fi
    fi
    printf '%s\n' "$rest" | awk -F"$TAB" -v OFS="$TAB" -v pre="$seed$TAB$exp$TAB$prim$TAB$nrep$TAB$ntop$TAB$nfully$TAB$ntopr$TAB$status$TAB$relab" \
        -v fi="$findings" -v und="$und" -v fu="$nfullyu" '{ if (fi != "") $6 = fi; $8 = und; $9 = fu; print pre, $0 }' >> "$OUT/results.tsv"
    [ "$nrep" != "$rep" ] || [ "$nfully" != "$fully" ] &&
        printf '%s %s: %s (fully %s) -> %s (fully %s)\n' "$seed" "$exp" "$rep" "$fully" "$nrep" "$nfully" >> "$OUT/changed.txt"
done < "$DRAW/results.tsv"
rm -f "$OUT/analysis.json"
"$SC" report "$OUT/results.tsv" "$OUT/cf.tsv" "$TITLE" > "$OUT/report.md"
cat "$OUT/report.md"
