# Shared by the case-study scripts (sourced).  Each script:
#   examples/case-studies/NAME.sh [--small] [--out DIR] [--doc]
# runs its experiment with the hopscope command, checks the diagnosis the
# case study documents (exit 1 when the tool says otherwise), and with
# --doc rewrites its section of docs/case-studies.md (between the markers
# <!-- case:NAME --> and <!-- /case:NAME -->) and its pictures under
# docs/case-studies/NAME/.  --small is the reduced size CI runs.
set -u
CS_NAME=$(basename "$0" .sh)
CS_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
H=${HOPSCOPE:-$CS_ROOT/build/bin/hopscope}
case "$H" in /*) ;; *) H="$PWD/$H" ;; esac   # commands run in the output directory
CS_SMALL=0
CS_DOC=0
CS_OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
        --small) CS_SMALL=1 ;;
        --doc) CS_DOC=1 ;;
        --out) CS_OUT=$2; shift ;;
        -h|--help) sed -n '2,/^$/p' "$0"; exit 0 ;;
        *) echo "$CS_NAME: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
[ -x "$H" ] || { echo "$CS_NAME: $H not found: run 'make' first" >&2; exit 2; }
[ -n "$CS_OUT" ] || CS_OUT=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-$CS_NAME.XXXXXX")
mkdir -p "$CS_OUT"
CS_MD="$CS_OUT/section.md"
: > "$CS_MD"
cs_failed=0

# md TEXT...: a line of the section
md() { printf '%s\n' "$*" >> "$CS_MD"; }
# run CMD...: runs a hopscope command, shows it in the section and on the
# terminal; its output is in $CS_OUT/last.txt
run() {
    printf '$ hopscope' > "$CS_OUT/cmd.txt"
    for a in "$@"; do printf ' %s' "$a" >> "$CS_OUT/cmd.txt"; done
    cat "$CS_OUT/cmd.txt"; echo
    (cd "$CS_OUT" && "$H" "$@") > "$CS_OUT/last.txt" 2>&1 || {
        echo "$CS_NAME: hopscope $1 failed:" >&2; tail -20 "$CS_OUT/last.txt" >&2; exit 1; }
}
# block FILE [SED-RANGE]: the file (or the lines sed -n RANGE prints) as a code block
block() {
    md '```'
    if [ $# -gt 1 ]; then sed -n "$2" "$1" >> "$CS_MD"; else cat "$1" >> "$CS_MD"; fi
    md '```'
}
cmdline() { md '```'; cat "$CS_OUT/cmd.txt" >> "$CS_MD"; echo >> "$CS_MD"; md '```'; }
# check NAME CONDITION-EXIT-STATUS
check() {
    if [ "$2" -eq 0 ]; then echo "ok - $CS_NAME: $1"; else echo "not ok - $CS_NAME: $1"; cs_failed=1; fi
}
picture() { # picture RUN FILE CAPTION
    if [ "$CS_DOC" -eq 1 ]; then
        mkdir -p "$CS_ROOT/docs/case-studies/$CS_NAME"
        cp "$CS_OUT/$1/$2" "$CS_ROOT/docs/case-studies/$CS_NAME/$1-$2"
        md "![$3](case-studies/$CS_NAME/$1-$2)"
        md ""
    fi
}
# finish: write the section into docs/case-studies.md with --doc; exit status
finish() {
    if [ "$CS_DOC" -eq 1 ] && [ "$CS_SMALL" -eq 0 ]; then
        doc="$CS_ROOT/docs/case-studies.md"
        [ -f "$doc" ] || printf '# Case studies\n' > "$doc"
        {
            echo "<!-- case:$CS_NAME -->"
            cat "$CS_MD"
            echo "<!-- /case:$CS_NAME -->"
        } > "$CS_OUT/section.full"
        awk -v name="$CS_NAME" -v file="$CS_OUT/section.full" '
            BEGIN { start = "<!-- case:" name " -->"; stop = "<!-- /case:" name " -->"; done = 0 }
            $0 == start { while ((getline l < file) > 0) print l; skip = 1; done = 1; next }
            $0 == stop  { skip = 0; next }
            !skip { print }
            END { if (!done) { print ""; while ((getline l < file) > 0) print l } }
        ' "$doc" > "$doc.tmp" && mv "$doc.tmp" "$doc"
        echo "$CS_NAME: section written to docs/case-studies.md"
    fi
    exit $cs_failed
}
