#!/bin/sh
# Runs the same experiments with two builds of hopscope and compares every
# file they write byte for byte: a check that a change (a refactoring, a
# module split) did not change behaviour.
#   examples/compare_builds.sh [--full] BEFORE_BUILD AFTER_BUILD [OUT]
# BEFORE_BUILD and AFTER_BUILD are build directories (each with bin/hopscope),
# e.g. a build of main made with
#   git worktree add /tmp/before main && make -C /tmp/before -j2
# The experiments: the three case studies (examples/case-studies, --small
# unless --full; gen, simulate with background, analyze, render, whatif),
# synthetic traffic on each topology family, and replays with every mapping
# policy, background jobs with --congestion-impact, forced collective
# algorithms and a topology file.  With mpirun.openmpi and the example app,
# also a recorded trace (recorded once, with AFTER, then replayed by both).
# Everything that differs is listed; exit 0 when nothing does.  Wall-clock
# figures (seconds, events per second) appear only on the terminal output,
# which is compared with those lines filtered (the filter is printed).
set -u
FULL=0
[ "${1:-}" = "--full" ] && { FULL=1; shift; }
[ $# -ge 2 ] || { sed -n '2,18p' "$0"; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
B1=$(abs "$1"); B2=$(abs "$2")
OUT=$(abs "${3:-$(mktemp -d "${TMPDIR:-/tmp}/hopscope-compare.XXXXXX")}")
for b in "$B1" "$B2"; do
    [ -x "$b/bin/hopscope" ] || { echo "compare_builds: $b/bin/hopscope not found" >&2; exit 2; }
done
mkdir -p "$OUT"

# A recorded trace, if this machine can record one (same input for both).
REC=""
APP="$B2/examples/openmpi/halo3d"
if command -v mpirun.openmpi >/dev/null 2>&1 && [ -x "$APP" ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    rm -rf "$OUT/recorded.trace"
    if timeout 300 "$B2/bin/hopscope" record -o "$OUT/recorded.trace" -- \
            mpirun.openmpi --oversubscribe -np 8 "$APP" >"$OUT/record.log" 2>&1; then
        REC="$OUT/recorded.trace"
    else
        echo "compare_builds: recording failed (see $OUT/record.log); skipping the recorded trace"
    fi
fi

# experiments LABEL BUILD: every run of one build under $OUT/LABEL
experiments() {
    d="$OUT/$1"; h="$2/bin/hopscope"
    rm -rf "$d"; mkdir -p "$d"
    small="--small"; [ $FULL -eq 1 ] && small=""
    for cs in halo pf3d incast; do
        HOPSCOPE="$h" sh "$ROOT/examples/case-studies/$cs.sh" $small --out "$d/cs-$cs" \
            >"$d/cs-$cs.log" 2>&1 || echo "compare_builds: $1: case study $cs failed" >&2
    done
    (
        cd "$d" || exit 1
        run() { name=$1; shift; "$h" "$@" >"$name.out" 2>&1; echo "exit $?" >>"$name.out"; }
        run traffic-ft simulate --topo fattree:k=8,n=2 --traffic uniform --load 0.7 --duration 5us -o traffic-ft
        run traffic-df simulate --topo dragonfly:a=4,p=2,h=2 --traffic groupshift --load 0.5 --duration 5us -o traffic-df
        run traffic-torus simulate --topo torus:4x4x4 --traffic transpose --load 0.4 --duration 5us -o traffic-torus
        run traffic-hot simulate --topo fattree:k=4,n=3 --traffic incast:target=3,senders=8,bg=0.2 --duration 5us -o traffic-hot
        run gen-canary gen canary --ranks 32 --iters 4 -o canary.trace --quiet
        run gen-halo gen halo3d --ranks 64 --iters 3 --ppn 4 --reduce-every 2 -o halo.trace --quiet
        run gen-pingpong gen pingpong --ranks 8 --iters 5 --size 64K -o pp.trace --quiet
        run rp-linear simulate --topo fattree:k=8,n=2 -i halo.trace -o rp-linear
        run rp-rr simulate --topo fattree:k=8,n=2 -i halo.trace --map roundrobin -o rp-rr
        run rp-random simulate --topo dragonfly:a=4,p=2,h=2 -i canary.trace --map random:7 --seed 3 -o rp-random
        run rp-shift simulate --topo torus:4x4x4 -i halo.trace --map shift:5 -o rp-shift
        run rp-bg simulate --topo fattree:k=8,n=2 -i canary.trace --background mixed --congestion-impact -o rp-bg
        run rp-bgtrace simulate --topo fattree:k=8,n=2 -i pp.trace --background trace:canary.trace -o rp-bgtrace
        run rp-coll simulate --topo fattree:k=8,n=2 -i canary.trace --coll allreduce=ring --eager 1K --mpi-overhead 100ns -o rp-coll
        run rp-topofile simulate --topo "file:$ROOT/examples/viz/leafspine.topo" -i pp.trace -o rp-topofile
        for r in rp-linear rp-bg rp-random traffic-ft; do
            run "an-$r" analyze "$r"
            run "render-$r" render "$r"
        done
        run whatif-bg whatif rp-bg --no-background -q -o rp-bg.nobg
        if [ -n "$REC" ]; then
            run rp-recorded simulate --topo fattree:k=4,n=2 -i "$REC" -o rp-recorded
            run an-rp-recorded analyze rp-recorded
        fi
    )
}

echo "compare_builds: before = $B1, after = $B2, output in $OUT"
experiments before "$B1"
experiments after "$B2"

# Terminal output carries wall-clock figures (the "simulated" line's
# "in 0.06 s (compiling ... s, simulating ... s, writing ... s)" or
# "in 0.002 s (5.8 M hops/s)"); they are masked.  The "memory" line (the
# engine's own model state in megabytes, a property of its data layout, not
# of the model, and absent from replays before it was added there) is
# removed.  The progress lines of cli/progress.c ("hopscope analyze: 2.4 s:
# writing analysis.json", "... done in 2.7 s") appear only when a stage takes
# more than 2 s of wall clock: they are dropped (in a case study's .one file,
# the one-line copy of the output, from its start).  Nothing else.
WALL='/^simulated/ s/ in [0-9.e+-]+ s( \(.*\))?$/ in <wall-clock>/
/^memory /d
/^hopscope [a-z]+: [0-9.]+ s: [^:]*(: [0-9]+ of [0-9]+ \([0-9]+%\))?$/d
/^hopscope [a-z]+: done in [0-9.]+ s$/d
s/^(hopscope [a-z]+: [0-9.]+ s: [^:]*(: [0-9]+ of [0-9]+ \([0-9]+%\))? )*(hopscope [a-z]+: done in [0-9.]+ s )?//'
echo "compare_builds: terminal output compared after sed -E '$WALL'"
ndiff=0
nfiles=0
cd "$OUT/before" || exit 2
for f in $(find . -type f | sort); do
    nfiles=$((nfiles + 1))
    g="$OUT/after/$f"
    if [ ! -f "$g" ]; then echo "only in before: $f"; ndiff=$((ndiff + 1)); continue; fi
    case "$f" in
        *.out|*.log|*/last.txt|*/cmd.txt|*/section.md|*.txt|*.one)
            if ! cmp -s "$f" "$g"; then
                sed -E "$WALL" "$f" >"$OUT/.a"; sed -E "$WALL" "$g" >"$OUT/.b"
                cmp -s "$OUT/.a" "$OUT/.b" || { echo "differs: $f"; ndiff=$((ndiff + 1)); }
            fi ;;
        *)
            cmp -s "$f" "$g" || { echo "differs: $f"; ndiff=$((ndiff + 1)); } ;;
    esac
done
cd "$OUT/after" || exit 2
for f in $(find . -type f | sort); do
    [ -f "$OUT/before/$f" ] || { echo "only in after: $f"; ndiff=$((ndiff + 1)); }
done
echo "compare_builds: $nfiles files from the before build, $ndiff differ"
rm -f "$OUT/.a" "$OUT/.b"
[ $ndiff -eq 0 ]
