#!/bin/sh
# The large draw of the randomized scenario suite, written into
# docs/validation.md ("Randomized scenarios"): 250 development seeds and
# 150 held-out seeds, each scenario bounded by a timeout.
#
#   examples/scenarios/validate.sh [-b BUILD] [-t SECONDS] [-r] NAME "HEADING"
#
# (-r: reuse draws already in the work directory, only rewrite the doc)
# replaces the section between <!-- scenarios:NAME --> and
# <!-- /scenarios:NAME --> in docs/validation.md (appending it to the
# "Randomized scenarios" part if absent) with HEADING, the commit, and the
# two tables.  The baseline before the issue-11 fixes is NAME=baseline;
# re-run with another NAME to keep it beside the new figures, e.g.
#   examples/scenarios/validate.sh after "After the issue-11 fixes"
# About 15-30 minutes on 2 loaded cores (most of it in scenarios that hit
# the timeout).  Work files go to $TMPDIR/hopscope-scenarios-NAME.
set -u
BUILD=build
TO=60
REUSE=0
while [ $# -gt 0 ]; do
    case $1 in
        -b) BUILD=$2; shift 2 ;;
        -t) TO=$2; shift 2 ;;
        -r) REUSE=1; shift ;;
        *) break ;;
    esac
done
[ $# -eq 2 ] || { sed -n 6,18p "$0" >&2; exit 2; }
NAME=$1 HEADING=$2
DOC=docs/validation.md
W="${TMPDIR:-/tmp}/hopscope-scenarios-$NAME"
mkdir -p "$W"
R=examples/scenarios/run.sh
draw() { # DIR FIRST LAST TITLE
    [ "$REUSE" = 1 ] && [ -s "$W/$1/report.md" ] && return 0
    $R -b "$BUILD" -t "$TO" -o "$W/$1" "$2" "$3" "$4" > /dev/null 2> "$W/$1.log"
}
draw dev 1 250 "Development seeds 1-250" || exit 1
draw held 100001 100150 "Held-out seeds 100001-100150" || exit 1
{
    echo "<!-- scenarios:$NAME -->"
    echo "### $HEADING"
    echo
    echo "Commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(date -u +%Y-%m-%d),"
    echo "\`examples/scenarios/validate.sh -t $TO $NAME \"$HEADING\"\`."
    echo
    sed 's/^#### /#### /' "$W/dev/report.md"
    sed 's/^#### /#### /' "$W/held/report.md"
    echo "<!-- /scenarios:$NAME -->"
} > "$W/section.md"
if grep -q "^<!-- scenarios:$NAME -->" "$DOC"; then
    awk -v name="$NAME" -v sec="$W/section.md" '
        $0 == "<!-- scenarios:" name " -->" { while ((getline l < sec) > 0) print l; skip = 1; next }
        $0 == "<!-- /scenarios:" name " -->" { skip = 0; next }
        !skip { print }' "$DOC" > "$W/doc.md" && cp "$W/doc.md" "$DOC"
else
    { echo; cat "$W/section.md"; } >> "$DOC"
fi
echo "validate.sh: wrote section '$NAME' of $DOC"
