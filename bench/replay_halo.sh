#!/bin/sh
# MPI replay speed: a 4096-rank 3D halo exchange (hopscope gen halo3d, 50
# iterations of six 64 KiB faces, rendezvous) replayed on a 1024-node
# fat-tree, 4 ranks per node, writing the run directory.  Target: under 2
# minutes.  Baseline in the same run: the synthetic traffic driver's packet
# hops per second on the same network (uniform traffic at saturation), so
# the ratio is the replay's cost per hop against the bare engine's.
set -eu
BUILD=$1; OUT=$2
H=$BUILD/bin/hopscope
RUNS=3
T=fattree:k=32,n=2
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-bench-replay.XXXXXX")
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }

g0=$(now)
"$H" gen halo3d --ranks 4096 --iters 50 --size 64K -o "$W/halo" > /dev/null
g1=$(now)
: > "$W/raw"
for i in $(seq $RUNS); do
    t0=$(now)
    /usr/bin/time -f "%M" -o "$W/rss" "$H" simulate --topo $T --ppn 4 -i "$W/halo" -o "$W/run" > "$W/out"
    t1=$(now)
    # simulated X M events, Y M packet hops in S s (compiling A s, simulating B s, writing C s)
    sed -n 's/^simulated *\([0-9.e+]*\) M events, \([0-9.e+]*\) M packet hops in [0-9.]* s (compiling the trace \([0-9.]*\) s, simulating \([0-9.]*\) s, writing \([0-9.]*\) s).*/\1 \2 \3 \4 \5/p' "$W/out" |
        awk -v w="$(echo "$t1 - $t0" | bc)" -v rss="$(cat "$W/rss")" '{ print "R", w, $1, $2, $3, $4, $5, rss }' >> "$W/raw"
    "$H" simulate --topo $T --load 0.55 --duration 100us |
        sed -n 's/^simulated .*: \([0-9]*\) events, \([0-9]*\) packet hops in \([0-9.e-]*\) s .*/S \1 \2 \3/p' >> "$W/raw"
done
pred=$(sed -n 's/^predicted *\([^(]*\) (.*/\1/p' "$W/out" | sed 's/ *$//')
msgs=$(awk '$1 == "messages" { print $2; exit }' "$W/out")
net=$(awk '$1 == "latency" { print $2; exit }' "$W/out")
awk -v gen="$(echo "$g1 - $g0" | bc)" -v runs=$RUNS -v pred="$pred" -v msgs=$msgs -v net=$net '
    function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((n + 1) / 2)] }
    $1 == "R" { n++; wall[n] = $2; ev = $3; hops = $4; comp[n] = $5; sim[n] = $6; wr[n] = $7; rss[n] = $8; hr[n] = $4 * 1e6 / $6 }
    $1 == "S" { m++; sh[m] = $3 / $4 }
    END {
        w = med(wall, n); h = med(hr, n); b = med(sh, m)
        printf "4096-rank halo3d (16x16x16, 50 iterations, six 64 KiB faces per rank per iteration,\n"
        printf "10 us of computation each) on `%s`, 4 ranks per node, linear mapping; %.1f M\n", "fattree:k=32,n=2", ev
        printf "events, %.1f M packet hops, %.2f M messages (%.2f M across the network); predicted\n", hops, msgs / 1e6, net / 1e6
        printf "run time %s.  Median of %d runs (min-max); whole command, trace to run directory.\n\n", pred, runs
        printf "| | median | min-max | target |\n|---|---|---|---|\n"
        printf "| wall time, `hopscope simulate -i` | %.1f s | %.1f-%.1f s | < 120 s |\n", w, wall[1], wall[n]
        printf "| of which compiling the trace | %.2f s | | |\n", med(comp, n)
        printf "| of which simulating | %.1f s | | |\n", med(sim, n)
        printf "| of which writing the run directory | %.2f s | | |\n", med(wr, n)
        printf "| peak RSS | %.0f MB | | |\n", med(rss, n) / 1024
        printf "| packet hops per second of simulation | %.2f M | | |\n", h / 1e6
        printf "| baseline: synthetic uniform traffic, same network, load 0.55 | %.2f M | | |\n", b / 1e6
        printf "| replay vs baseline (hops per second) | %.2fx | | |\n\n", h / b
        printf "Writing the 4096-rank trace (`hopscope gen`) took %.1f s.\n", gen
        printf "Commands: `hopscope gen halo3d --ranks 4096 --iters 50 --size 64K -o T`,\n"
        printf "`hopscope simulate --topo fattree:k=32,n=2 --ppn 4 -i T -o RUN`; baseline\n"
        printf "`hopscope simulate --topo fattree:k=32,n=2 --load 0.55 --duration 100us`.\n"
    }' "$W/raw" > "$OUT"
