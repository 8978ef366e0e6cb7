#!/bin/sh
# Runs the benchmarks and writes their figures into docs/performance.md.
#
# Each benchmark is bench/<name>.sh (it may run binaries built from
# bench/*.c, found in $BUILD/bench/).  It is called as
#     bench/<name>.sh BUILD_DIR OUT.md
# and writes a markdown section to OUT.md: what was measured, the command,
# the median of several runs and the ratio against the baseline measured in
# the same run.  This script replaces the section between the markers
#     <!-- bench:<name> --> ... <!-- /bench:<name> -->
# in docs/performance.md (appending it if absent), so one benchmark can be
# re-run alone:  make bench BENCH=<name>
set -u
BUILD=${1:-build}
ONLY=${BENCH:-}
DOC=docs/performance.md
OUTDIR="$BUILD/bench-results"
mkdir -p "$OUTDIR"

machine() {
    cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
    echo "$(nproc) cores ($cpu), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(. /etc/os-release; echo "$PRETTY_NAME"), $(gcc --version | head -1)"
}

[ -f "$DOC" ] || printf '# Performance\n\nFigures written by `make bench` (bench/run.sh); each section says its machine, date and command.\n' > "$DOC"

status=0
for b in bench/*.sh; do
    name=$(basename "$b" .sh)
    [ "$name" = run ] && continue
    [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
    echo "== bench $name"
    out="$OUTDIR/$name.md"
    {
        echo "<!-- bench:$name -->"
        echo "## $name"
        echo
        echo "Machine: $(machine).  Date: $(date -u +%Y-%m-%d).  Command: \`make bench BENCH=$name\`."
        echo
    } > "$out"
    if ! sh "$b" "$BUILD" "$out.body"; then
        echo "bench $name FAILED" >&2
        status=1
        continue
    fi
    cat "$out.body" >> "$out"
    echo "<!-- /bench:$name -->" >> "$out"
    cat "$out.body"
    # Replace or append the section.
    awk -v name="$name" -v file="$out" '
        BEGIN { start = "<!-- bench:" name " -->"; stop = "<!-- /bench:" name " -->"; done = 0 }
        $0 == start { while ((getline l < file) > 0) print l; skip = 1; done = 1; next }
        $0 == stop  { skip = 0; next }
        !skip { print }
        END { if (!done) { print ""; while ((getline l < file) > 0) print l } }
    ' "$DOC" > "$DOC.tmp" && mv "$DOC.tmp" "$DOC"
done
exit $status
