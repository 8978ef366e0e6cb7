#!/bin/sh
# The randomized scenario suite (issue 11, section 6): draws scenarios whose
# right answer is known by construction and checked against the model's
# ground truth, runs hopscope on each (simulate, analyze), scores the
# diagnosis, and writes the accuracy tables.
#
#   examples/scenarios/run.sh [-b BUILD] [-t SECONDS] [-o OUTDIR] [-k] FIRST LAST [TITLE]
#
# Seeds FIRST..LAST (each seed is one scenario; the class is seed mod 5:
# none, pattern, mapping, interference, mapping+interference).  -t bounds
# every simulate and analyze (default 60 s; simulate also gets at most
# SCENARIO_MEM_KB of virtual memory, 4 GB): a scenario that times out or
# whose replay fails is a failure and is listed.  Writes OUTDIR/results.tsv,
# OUTDIR/cf.tsv and OUTDIR/report.md (markdown, printed too).  -k keeps each
# scenario's directories (traces and runs) under OUTDIR/s<seed>.
#
# The rule that labels a scenario from the truth, the redraws and the scoring
# are in tests/helpers/scenarios.c and docs/validation.md.
#
# The seeds of docs/validation.md: development 1-200, held out 100001-100100
# (run once, at the end, never looked at while building the suite):
#   examples/scenarios/run.sh -o /tmp/dev 1 200 "development seeds 1-200"
#   examples/scenarios/run.sh -o /tmp/held 100001 100100 "held-out seeds 100001-100100"
set -u
BUILD=build
TO=60
OUT=
KEEP=0
while [ $# -gt 0 ]; do
    case $1 in
        -b) BUILD=$2; shift 2 ;;
        -t) TO=$2; shift 2 ;;
        -o) OUT=$2; shift 2 ;;
        -k) KEEP=1; shift ;;
        *) break ;;
    esac
done
[ $# -ge 2 ] || { sed -n 7,14p "$0" >&2; exit 2; }
FIRST=$1 LAST=$2 TITLE=${3:-seeds $1-$2}
H="$BUILD/bin/hopscope"
SC="$BUILD/tests/helpers/scenarios"
[ -x "$H" ] && [ -x "$SC" ] || { echo "run.sh: build first (make; make tests)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-scenarios.XXXXXX")
mkdir -p "$OUT"
RES="$OUT/results.tsv"
CF="$OUT/cf.tsv"
: > "$RES"
: > "$CF"
MAXATT=4

# Two small MPI programs recorded once (Open MPI, 8 ranks) for rec:NAME.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
record() { # NAME ARGS...
    name=$1; shift
    [ -f "$OUT/rec/$name/manifest.txt" ] && return 0
    exe="$BUILD/tests/mpi/openmpi/$name"
    [ -x "$exe" ] && command -v mpirun.openmpi >/dev/null || return 1
    mkdir -p "$OUT/rec"
    timeout 120 "$H" record -o "$OUT/rec/$name" -- mpirun.openmpi --oversubscribe -np 8 \
        "$exe" "$@" > "$OUT/rec/$name.log" 2>&1
}
record incast 10 65536 || echo "run.sh: no recorded incast (Open MPI test programs missing); rec:incast falls back to gen" >&2
record ring 20 1000 || echo "run.sh: no recorded ring; rec:ring falls back to gen" >&2

# Every simulate is bounded in time and in memory (a replay that stops
# progressing while its background keeps running grows without bound).
MEM_KB=${SCENARIO_MEM_KB:-4000000}
sim() { # DIR TRACE MAP BG -> rc
    (ulimit -v "$MEM_KB" 2>/dev/null
     exec timeout "$TO" "$H" simulate --quiet --topo "$TOPO" -i "$2" --map "$3" ${4:+--background "$4"} \
        $FIELD --seed "$seed" -o "$1") > "$1.log" 2>&1
}

row() { # status
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$seed" "$EXPECTED" \
        "$PRIMARY" "$REPORTED" "$TOP" "$FULLY" "$TOPRIGHT" "$1" "$RELAB" "$TOPO" "$APPSHOWN" \
        "$MAP" "$BG" "$FIELD" "$FINDINGS" "$(( $(date +%s) - t0 ))" "$UNDETERMINED" "$FULLYU" >> "$RES"
}

seed=$FIRST
while [ "$seed" -le "$LAST" ]; do
    t0=$(date +%s)
    d="$OUT/s$seed"
    rm -rf "$d"; mkdir -p "$d"
    attempt=0 status=ok
    EXPECTED=- PRIMARY=- REPORTED=- TOP=- FULLY=0 TOPRIGHT=0 FINDINGS=- RELAB=0
    UNDETERMINED=none FULLYU=0
    while :; do
        eval "$("$SC" draw "$seed" "$attempt")"
        EXPECTED=$CLASS PRIMARY=- UNDETERMINED=none
        rm -rf "$d"/*
        case $APP in
            rec:*)
                name=${APP#rec:}
                if [ -f "$OUT/rec/$name/manifest.txt" ]; then
                    T="$OUT/rec/$name" APPSHOWN="recorded $name (Open MPI, 8 ranks)"
                else
                    T="$d/trace" APPSHOWN="gen $name --ranks 8 (no MPI to record)"
                    case $name in
                        incast) "$H" gen incast --ranks 8 --iters 10 --size 64K --quiet -o "$T" ;;
                        *) "$H" gen pingpong --ranks 8 --iters 20 --size 1000 --quiet -o "$T" ;;
                    esac
                fi ;;
            *)
                T="$d/trace" APPSHOWN="gen $APP"
                # shellcheck disable=SC2086
                "$H" gen $APP --seed "$seed" --quiet -o "$T" || { status=gen-failed; break; }
                ;;
        esac
        sim "$d/A" "$T" "$MAP" "$BG"; rc=$?
        [ $rc -eq 124 ] && { status="timeout (simulate, ${TO}s)"; break; }
        [ $rc -ne 0 ] && { status="simulate exit $rc: $(grep -m1 -iE 'error|deadlock|cannot' "$d/A.log" | cut -c1-120)"; break; }
        B="$d/A" C="$d/A"
        if [ -n "$BG" ]; then
            sim "$d/B" "$T" "$MAP" ""; rc=$?
            [ $rc -ne 0 ] && { status="truth run without background: exit $rc"; break; }
            B="$d/B" C="$d/B"
        fi
        if [ "$MAP" != linear ]; then
            sim "$d/C" "$T" linear ""; rc=$?
            [ $rc -ne 0 ] && { status="truth run with the compact mapping: exit $rc"; break; }
            C="$d/C"
        fi
        eval "$("$SC" label "$CLASS" "$FUNNEL" "$d/A" "$B" "$C")"
        [ "$VERDICT" = accept ] && break
        attempt=$((attempt + 1))
        if [ $attempt -ge $MAXATT ]; then
            attempt=$((attempt - 1))
            if [ "$VERDICT" = ambiguous ]; then status=unlabelled; else RELAB=1; fi
            break
        fi
    done
    if [ "$status" = ok ] || [ "$status" = unlabelled ]; then
        timeout "$TO" "$H" analyze -q "$d/A" > "$d/analyze.log" 2>&1; rc=$?
        if [ $rc -eq 124 ]; then status="timeout (analyze, ${TO}s)"
        elif [ $rc -ne 0 ]; then status="analyze exit $rc"
        elif [ "$status" = unlabelled ]; then
            eval "$("$SC" score "$d/A" none none | grep -v '^cf')"
            FULLY=0 FULLYU=0 TOPRIGHT=0
        else
            "$SC" score "$d/A" "$EXPECTED" "$PRIMARY" "$UNDETERMINED" > "$d/score" || status="score failed"
            eval "$(grep -v '^cf' "$d/score")"
            grep '^cf' "$d/score" >> "$CF"
        fi
    fi
    row "$status"
    printf '%s %s -> %s (%s) %s [attempts %s: %s]\n' "$seed" "$EXPECTED" "$REPORTED" "$FINDINGS" "$status" "$((attempt + 1))" "${NOTE:-}" >&2
    [ "$KEEP" = 1 ] || rm -rf "$d"
    seed=$((seed + 1))
done
"$SC" report "$RES" "$CF" "$TITLE" > "$OUT/report.md"
cat "$OUT/report.md"
