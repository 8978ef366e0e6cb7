#!/bin/sh
# Replays a job with every background kind on dragonflies (minimal,
# Valiant, UGAL), a torus and fat-trees (D-mod-K, adaptive) under several
# mappings, and prints one line per run: whether it ended, its replay
# status, the wall time and the predicted time.  Issue 11's bar: every run
# ends (the watchdog and the deadlock detector make a silent hang
# impossible) and, with a deadlock-free network and a starvation-free
# arbiter, every run completes ("ok").
#
#   examples/replay/reliability_sweep.sh HOPSCOPE WORKDIR [small|large]
#
# small (tests/integration/reliability.sh): 16 ranks, 3 iterations, one
# dragonfly routing and one fat-tree routing; large: 36 ranks, 20
# iterations, every routing and more mappings.  SIM_EXTRA adds options to
# every simulate (e.g. "--bg-eager-credits 1000000": the background
# unbounded, as before issue 11).  Each run is bounded by
# `timeout` and a 4 GB address-space limit, so a regression shows as
# "timeout" or "killed" instead of hanging the script.
set -u
H=$1
W=$2
SIZE=${3:-small}
mkdir -p "$W"
if [ "$SIZE" = large ]; then
    RANKS=36 ITERS=20 LIMIT=120
    TOPOS="dragonfly:a=4,p=4,h=2,g=5 dragonfly:a=4,p=4,h=2,g=5,routing=valiant
           dragonfly:a=4,p=4,h=2,g=5,routing=ugal torus:4x4x4 torus:6x4x4
           fattree:k=8,n=2 fattree:k=8,n=2,routing=adaptive"
    MAPS="linear roundrobin random:1 random:4 shift:7"
else
    RANKS=16 ITERS=3 LIMIT=60
    TOPOS="dragonfly:a=4,p=4,h=2,g=5,routing=valiant torus:4x4x4 fattree:k=8,n=2"
    MAPS="linear random:4"
fi
"$H" gen halo3d --ranks $RANKS --iters $ITERS --size 2K --compute 10us -o "$W/job" > /dev/null || exit 2
"$H" gen incast --ranks 8 --iters 4 -o "$W/bgtrace" > /dev/null || exit 2
BGS="alltoall incast:frac=0.5 rma_incast:frac=0.5 rma_bcast mixed trace:$W/bgtrace"
printf 'topology\tbackground\tmap\tend\tstatus\twall_s\tpredicted_ps\n'
for t in $TOPOS; do
    for b in $BGS; do
        for m in $MAPS; do
            s0=$(date +%s.%N)
            ( ulimit -v 4000000
              exec timeout $LIMIT "$H" simulate --topo "$t" -i "$W/job" --map "$m" \
                  --background "$b" ${SIM_EXTRA:-} -o "$W/run" > "$W/out" 2>&1 )
            rc=$?
            s1=$(date +%s.%N)
            case $rc in
            0|1) end=ended ;;
            124) end=timeout ;;
            *) end="killed($rc)" ;;
            esac
            st=$(sed -n 's/.*"status": "\([a-z_]*\)".*/\1/p' "$W/run/app.json" 2>/dev/null | tail -1)
            tot=$(sed -n 's/.*"total_ps": \([0-9]*\).*/\1/p' "$W/run/manifest.json" 2>/dev/null | head -1)
            case $b in trace:*) bn=trace ;; *) bn=$b ;; esac
            printf '%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n' "$t" "$bn" "$m" "$end" "${st:-none}" \
                "$(echo "$s1 - $s0" | bc)" "${tot:-0}"
            rm -rf "$W/run"
        done
    done
done
