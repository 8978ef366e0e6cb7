#!/bin/sh
# bench/json.sh BUILD OUT.md: hopscope's JSON reader (common/jsonread.c)
# against Debian's jansson and cJSON on the largest document hopscope reads:
# the analysis.json of a 16k-node dragonfly (dragonfly:a=16,p=8,h=8,g=129,
# uniform traffic at 0.3 for 60 us, as in bench/viz.sh: ~36 MB), which
# `hopscope render` and `whatif` parse.  Each library parses the document
# into its tree and walks all of it (bench/json_libs.c); the walk's checksum
# must agree between the libraries.  Time: parse + walk inside the process;
# peak RSS of the whole process (the 36 MB text buffer is in all three).
# Median of RUNS processes per library.  Needs libjansson-dev and
# libcjson-dev (bench/json_libs is built only then).  The issue-18 rule:
# switch to a library if it is within 1.5x of the reader in time and memory.
set -u
BUILD=$1
OUT=$2
H="$BUILD/bin/hopscope"
J="$BUILD/bench/json_libs"
RUNS=${RUNS:-5}
TOPO=dragonfly:a=16,p=8,h=8,g=129
[ -x "$J" ] || { echo "bench/json: $J not built (apt-get install libjansson-dev libcjson-dev; make bench)" >"$OUT"; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/json: needs /usr/bin/time (Debian package time)" >"$OUT"; exit 1; }
W=${JSON_BENCH_RUN:-}
if [ -z "$W" ]; then
    W=$(mktemp -d "${TMPDIR:-/tmp}/bench-json.XXXXXX")
    trap 'rm -rf "$W"' EXIT
    "$H" simulate --topo "$TOPO" --traffic uniform --load 0.3 --duration 60us -o "$W" >/dev/null || exit 1
    "$H" analyze "$W" -q || exit 1
fi
DOC="$W/analysis.json"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
: >"$W/json.raw"
for i in $(seq "$RUNS"); do
    for lib in hs jansson cjson; do
        /usr/bin/time -f "rss %M" "$J" "$lib" "$DOC" >"$W/json.one" 2>&1 || { cat "$W/json.one" >&2; exit 1; }
        t=$(awk '$1 == "'$lib'" { print $2 }' "$W/json.one")
        m=$(awk '$1 == "rss" { print $2 }' "$W/json.one")
        sum=$(awk '$1 == "'$lib'" { print $3, $4, $5 }' "$W/json.one")
        echo "$lib $t $m $sum" >>"$W/json.raw"
    done
done
# writing: the parsed tree back as compact JSON, into memory
: >"$W/jsonw.raw"
for i in $(seq "$RUNS"); do
    for lib in hs jansson cjson; do
        "$J" "$lib-write" "$DOC" >>"$W/jsonw.raw" || exit 1
    done
done
nsum=$(awk '{ print $4, $5, $6 }' "$W/json.raw" | sort -u | wc -l)
hs_t=$(awk '$1 == "hs" { print $2 }' "$W/json.raw" | median)
hs_m=$(awk '$1 == "hs" { print $3 }' "$W/json.raw" | median)
{
    echo "What: parse + walk of the analysis.json of a 16k-node dragonfly ($TOPO, uniform"
    echo "traffic, load 0.3, 60 us): $(wc -c <"$DOC") bytes, $(awk '$1 == "hs" { print $4; exit }' "$W/json.raw" | cut -d= -f2) values."
    echo "bench/json_libs.c reads the file, parses it into the library's tree, walks every"
    echo "value and frees it (jansson with JSON_REJECT_DUPLICATES, as strict as hopscope's"
    echo "reader on duplicate keys; cJSON has no such option).  Median of $RUNS processes"
    echo "per library; peak RSS of the process, which includes the text buffer."
    echo "Checksums of the walk agree across libraries: $([ "$nsum" -eq 1 ] && echo yes || echo "NO ($nsum different)")."
    echo
    echo "| reader | parse + walk s | vs hopscope | peak RSS MB | vs hopscope | within 1.5x in both |"
    echo "|---|---|---|---|---|---|"
    for lib in hs jansson cjson; do
        t=$(awk '$1 == "'$lib'" { print $2 }' "$W/json.raw" | median)
        m=$(awk '$1 == "'$lib'" { print $3 }' "$W/json.raw" | median)
        name=$lib
        case $lib in
            hs) name="hopscope (common/jsonread.c)" ;;
            jansson) name="jansson $(dpkg-query -W -f '${Version}' libjansson-dev 2>/dev/null)" ;;
            cjson) name="cJSON $(dpkg-query -W -f '${Version}' libcjson-dev 2>/dev/null)" ;;
        esac
        awk -v n="$name" -v t="$t" -v m="$m" -v ht="$hs_t" -v hm="$hs_m" \
            'BEGIN { printf "| %s | %.3f | %.2fx | %.0f | %.2fx | %s |\n", n, t, t / ht, m / 1024, m / hm,
                     (t <= 1.5 * ht && m <= 1.5 * hm) ? "yes" : "no" }'
    done
    echo
    echo "Writing the same tree back as compact JSON into memory (the parse is not timed;"
    echo "hopscope: the hs_json writer driven by a walk of the tree, as analyzer/output.c"
    echo "copies values; jansson: json_dumps with JSON_COMPACT; cJSON: cJSON_PrintUnformatted),"
    echo "median of $RUNS processes:"
    echo
    echo "| writer | seconds | vs hopscope | bytes written |"
    echo "|---|---|---|---|"
    hw=$(awk '$1 == "hs-write" { print $2 }' "$W/jsonw.raw" | median)
    for lib in hs jansson cjson; do
        t=$(awk '$1 == "'$lib'-write" { print $2 }' "$W/jsonw.raw" | median)
        b=$(awk '$1 == "'$lib'-write" { print $3; exit }' "$W/jsonw.raw" | cut -d= -f2)
        awk -v n="$lib" -v t="$t" -v h="$hw" -v b="$b" \
            'BEGIN { printf "| %s | %.3f | %.2fx | %s |\n", n == "hs" ? "hopscope (common/json.c)" : n, t, t / h, b }'
    done
    echo
    echo "Conformance (\`$J conform\`): the first element of each document as read."
    echo
    "$J" conform
    echo
    echo "Decision: the hand-written reader stays.  Only a library within 1.5x in both"
    echo "time and memory was to replace it, and only cJSON is; but cJSON reads numbers as"
    echo "doubles only (integers above 2^53 come back rounded: picosecond times past 2.5"
    echo "hours of simulated time, 64-bit seeds, and analyzer/output.c copies such values"
    echo "into analysis.json), accepts what RFC 8259's grammar forbids (leading zeros,"
    echo "invalid UTF-8, raw control characters) and duplicate keys, which hopscope's"
    echo "readers reject (include/hopscope/common.h), and truncates strings at \\u0000."
    echo "jansson is as strict as the reader but rejects integers above 2^63 and is"
    echo "slower than 1.5x.  Neither gives the byte offset of a value, which every"
    echo "rejection message of the readers names.  The writer (common/json.c, 180"
    echo "lines) stays too: it streams to the file in O(depth) memory, where both"
    echo "libraries must first build the whole document as a tree (for analysis.json, a"
    echo "tree the size of the ones above); its time is of the order of theirs (table);"
    echo "and either library would change the bytes of every JSON file hopscope writes"
    echo "(see the bytes column), which the module split of issue 18 must not do."
    echo
    echo "The machine is shared with other jobs, so timings vary between runs of this"
    echo "bench; the medians and the ratios within one run are what count."
} >"$OUT"
