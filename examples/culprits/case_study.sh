#!/bin/sh
# The issue-13 case study (docs/case-studies.md, section 5): five codes
# (2D halo, 3D halo, 3D halo with corners, sub-communicator all-to-all,
# pF3D-like) at 256 ranks (4 per node, 64 nodes) on a 4x4x4 torus and on a
# 2:1 tapered fat-tree, 16 KiB and 4 MiB messages, 84 mappings each; then
# the culprit fits (the study's nineteen features, every ground-truth
# feature, and the in-band counterparts of the nineteen), the
# generalisation from 256 to 1024 ranks (3D and 2D halo), and a sweep of
# structured mappings.  Writes OUT/table.md.
#
#   examples/culprits/case_study.sh [OUT] [SIZES] [CODES]
#
# OUT defaults to cs-culprits; SIZES to "16K 4M"; CODES to
# "halo2d halo3d halo3dc suba2a pf3d".  Resumable: run it again and every
# finished sweep and fit is kept (hopscope sweep resumes; fits are redone
# only when their output is missing).  TABLE_ONLY=1: only write the table
# of the fits already done.  The 16 KiB part takes about 6 minutes with
# -j 2 on two cores, the generalisation 1; a 4 MiB sweep 2-6 minutes,
# 24 for the all-to-all on the fat-tree at a load of 15-19; the halo with
# corners at 4 MiB (26 messages per rank) 64 on the torus at a load of
# 15-21 and 8 on the fat-tree.
set -eu
H=${HOPSCOPE:-$(cd "$(dirname "$0")/../.." && pwd)/build/bin/hopscope}
OUT=${1:-cs-culprits}
SIZES=${2:-16K 4M}
CODES=${3:-halo2d halo3d halo3dc suba2a pf3d}
J=${JOBS:-2}
mkdir -p "$OUT"
cd "$OUT"

# The study's nineteen (over the network links), and their in-band
# counterparts (the field has no stall counters: its "cong" and "cf"
# columns stand in for the stall ones; no injection-queue feature).
S19=f_truth_net_bytes_avg,f_truth_net_bytes_ao,f_truth_net_bytes_to,f_truth_net_bytes_max,f_truth_net_bytes_nao
S19=$S19,f_truth_net_stall_avg,f_truth_net_stall_ao,f_truth_net_stall_to,f_truth_net_stall_max,f_truth_net_stall_nao
S19=$S19,f_truth_net_stallpp_avg,f_truth_net_stallpp_ao,f_truth_net_stallpp_to,f_truth_net_stallpp_max,f_truth_net_stallpp_nao
S19=$S19,f_truth_dil_avg,f_truth_dil_max,f_truth_dil_ao,f_truth_injq_max
I18=f_inband_net_bytes_avg,f_inband_net_bytes_ao,f_inband_net_bytes_to,f_inband_net_bytes_max,f_inband_net_bytes_nao
I18=$I18,f_inband_net_cong_avg,f_inband_net_cong_ao,f_inband_net_cong_to,f_inband_net_cong_max,f_inband_net_cong_nao
I18=$I18,f_inband_net_cf_avg,f_inband_net_cf_ao,f_inband_net_cf_to,f_inband_net_cf_max,f_inband_net_cf_nao
I18=$I18,f_inband_dil_avg,f_inband_dil_max,f_inband_dil_ao

MAPS="--random 80 --map linear,roundrobin,shift:1,shift:7"

gen() {  # CODE SIZE RANKS TRACE
    [ -f "$4/.done" ] && return 0
    case $2 in 4M) it=2 ;; *) it=10 ;; esac
    case $1 in
    halo2d) set -- "$4" halo3d --neighbours 4 --size "$2" --ranks "$3" ;;
    halo3d) set -- "$4" halo3d --size "$2" --ranks "$3" ;;
    halo3dc) set -- "$4" halo3d --neighbours 26 --size "$2" --ranks "$3" ;;
    suba2a) set -- "$4" pf3d --no-halo --group 16 --a2a-size "$2" --ranks "$3" ;;
    pf3d) if [ "$2" = 16K ]; then set -- "$4" pf3d --size 16K --ranks "$3"
          else set -- "$4" pf3d --size "$2" --a2a-size "$2" --ranks "$3"; fi ;;
    esac
    t=$1; shift
    rm -rf "$t"
    "$H" gen "$@" --iters $it -o "$t" --quiet
    touch "$t/.done"
}

fit() {  # SWEEPDIR NAME FEATURES [options]
    d=$1; n=$2; f=$3; shift 3
    [ -f "$d/c-$n/summary.txt" ] && return 0
    mkdir -p "$d/c-$n"
    "$H" culprits "$d/sweep.csv" --features "$f" "$@" -o "$d/c-$n" > "$d/c-$n/summary.txt.tmp" 2>/dev/null
    mv "$d/c-$n/summary.txt.tmp" "$d/c-$n/summary.txt"
}

row() {  # LABEL SUMMARY
    awk -v label="$1" '
        /^[0-9]+ runs, [0-9]+ features/ { nf = $3 }
        /^held-out runs/ { for (i = 1; i <= NF; i++) { if ($i == "RCC") rcc = $(i+1); if ($i == "R^2") r2 = $(i+1) } }
        /cross validation:/ { for (i = 1; i <= NF; i++) { if ($i == "RCC") crcc = $(i+1) " +- " $(i+3); if ($i == "R^2") cr2 = $(i+1) " +- " $(i+3) } }
        /^ +[123]\. f_/ { sub(/^f_(truth|inband)_/, "", $2); top = top (top ? ", " : "") $2 " " $4 }
        END { printf "| %s | %s | %s | %s | %s | %s | %s |\n", label, nf, rcc, r2, crcc, cr2, top }
    ' "$2"
}

: > table.md.tmp
echo "| code, machine, size | features | held-out RCC | held-out R^2 | CV RCC | CV R^2 | first three by gain (share) |" >> table.md.tmp
echo "|---|---|---|---|---|---|---|" >> table.md.tmp
for size in $SIZES; do
    for code in $CODES; do
        [ "${TABLE_ONLY:-0}" = 1 ] || gen "$code" "$size" 256 "$code-$size.trace"
        for m in torus fattree; do
            case $m in torus) topo=torus:4x4x4 ;; fattree) topo=fattree:k=8,n=2,taper=2 ;; esac
            d=$code-$size-$m
            if [ "${TABLE_ONLY:-0}" = 1 ]; then
                [ -f "$d/c-inband18/summary.txt" ] || continue
            else
            "$H" sweep -i "$code-$size.trace" --topo $topo --ppn 4 $MAPS -o "$d" -j "$J" -q
            fit "$d" s19 "$S19" --greedy-steps 3
            fit "$d" truth f_truth_ --no-greedy
            fit "$d" inband18 "$I18" --no-greedy
            fi
            row "$code, $m, $size | study's 19" "$d/c-s19/summary.txt" | sed 's/| \([^|]*\) | study/| \1, study/' >> table.md.tmp
            row "$code, $m, $size, all truth" "$d/c-truth/summary.txt" >> table.md.tmp
            row "$code, $m, $size, in-band 18" "$d/c-inband18/summary.txt" >> table.md.tmp
        done
    done
done

# Generalisation: the 3D and the 2D halo, 16 KiB, torus: trained on the
# 256-rank sweep, tested on 84 mappings of the same code at 1024 ranks on
# an 8x8x4 torus.
if [ "${GENERALISE:-1}" = 1 ] && [ "${TABLE_ONLY:-0}" != 1 ]; then
    A=$(cd "$(dirname "$0")" 2>/dev/null && pwd)/scale_free.awk
    for code in ${GEN_CODES:-halo3d halo2d}; do
    [ -f $code-16K-torus/sweep.csv ] || continue
    gen $code 16K 1024 $code-16K-1024.trace
    "$H" sweep -i $code-16K-1024.trace --topo torus:8x8x4 --ppn 4 $MAPS -o $code-16K-torus-1024 -j "$J" -q
    # the time itself, and the time per byte on the busiest network link
    # (--per); then the same with the AO/TO/nao sums and counts made
    # per link (scale_free.awk: 384 and 1536 network links)
    [ -f sf-$code-256.csv ] || awk -F, -v links=384 -f "$A" $code-16K-torus/sweep.csv > sf-$code-256.csv
    [ -f sf-$code-1024.csv ] || awk -F, -v links=1536 -f "$A" $code-16K-torus-1024/sweep.csv > sf-$code-1024.csv
    for v in "" -per -sf -sf-per; do
        case $v in *sf*) a=sf-$code-256.csv; b=sf-$code-1024.csv ;;
                   *) a=$code-16K-torus/sweep.csv; b=$code-16K-torus-1024/sweep.csv ;; esac
        case $v in *per) o="--per f_truth_net_bytes_max" ;; *) o= ;; esac
        for sc in train own; do
            g=gen-$code-$sc$v
            if [ ! -f "$g/summary.txt" ]; then
                mkdir -p "$g"
                "$H" culprits --train $a --test $b --features "$S19" --test-scaling $sc --no-greedy \
                    $o -o "$g" > "$g/summary.txt" 2>/dev/null
            fi
        done
    done
    # what a model trained at 1024 ranks itself reaches on those runs
    fit $code-16K-torus-1024 s19 "$S19" --no-greedy
    done
fi

# Structured mappings: the 3D halo, 16 KiB, torus, with 80 structured
# mappings (structured_maps.awk: block shapes x block orders x node orders)
# instead of 80 random ones; then both sets of runs together.
if [ "${STRUCTURED:-1}" = 1 ] && [ "${TABLE_ONLY:-0}" != 1 ] && [ -f halo3d-16K.trace/.done ]; then
    A=$(cd "$(dirname "$0")" 2>/dev/null && pwd)/structured_maps.awk
    mkdir -p structured-maps
    [ -f structured-maps.txt ] || awk -v grid=8x8x4 -v torus=4x4x4 -v ppn=4 -v n=80 \
        -v dir="$(pwd)/structured-maps" -f "$A" > structured-maps.txt
    "$H" sweep -i halo3d-16K.trace --topo torus:4x4x4 --ppn 4 --map-list structured-maps.txt \
        --map linear,roundrobin,shift:1,shift:7 -o halo3d-16K-torus-struct -j "$J" -q
    fit halo3d-16K-torus-struct s19 "$S19" --greedy-steps 3
    fit halo3d-16K-torus-struct truth f_truth_ --no-greedy
    if [ -f halo3d-16K-torus/sweep.csv ]; then
        mkdir -p halo3d-16K-torus-mixed
        # the random sweep's rows, then the structured ones (the four standard
        # mappings once), renumbered
        { cat halo3d-16K-torus/sweep.csv
          tail -n +2 halo3d-16K-torus-struct/sweep.csv | grep -v ',linear,\|,roundrobin,\|,shift:'
        } | awk -F, 'BEGIN { OFS = "," } NR > 1 { $1 = NR - 2 } { print }' > halo3d-16K-torus-mixed/sweep.csv
        fit halo3d-16K-torus-mixed s19 "$S19" --no-greedy
    fi
fi
mv table.md.tmp table.md
echo "wrote $OUT/table.md"
