#!/bin/sh
# Reproduces the replay figures of docs/validation.md (markdown on stdout).
#   examples/replay/validate.sh [BUILD]     (about five minutes on 2 cores;
#                                           the last section needs make tests)
# Every replay is deterministic: the tables come out identical each time.
set -eu
BUILD=${1:-build}
H=$BUILD/bin/hopscope
TL=$BUILD/tests/helpers/truth_links
[ -x "$H" ] || { echo "build $H first: make" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/hopscope-replay-validate.XXXXXX")
trap 'rm -rf "$W"' EXIT

field() { awk -v k="\"$2\":" '$1 == k { v = $2; gsub(/[",]/, "", v); print v; exit }' "$1/app.json"; }

# ---- ping-pong against the analytic model -------------------------------------
T=fattree:k=16,n=2
echo "### Ping-pong against the analytic model"
echo
echo "100 round trips between nodes 0 and 1 (one leaf switch) of \`$T\`"
echo "(25 GB/s, 100 ns links, 100 ns switch delay, 4 KiB MTU), receives"
echo "pre-posted, eager up to 16 KiB.  Analytic: one way L(B) = (npk-1)"
echo "ser(4 KiB) + 300 ns + ser(last packet, >= 64 B) eager, 2 L(0) + L(B)"
echo "rendezvous (RTS, CTS, data); on one node (\`--ppn 2\`) copy(B) at 10 GB/s"
echo "+ 250 ns eager, + 3 x 250 ns rendezvous."
echo
echo "\`$H gen pingpong --ranks 2 --iters 100 --size B -o T; $H simulate --topo $T -i T [--ppn 2]\`"
echo
echo "| bytes | protocol | network: analytic | replayed | one node: analytic | replayed |"
echo "|---|---|---|---|---|---|"
for b in 0 8 4096 16384 16385 65536 1048576; do
    "$H" gen pingpong --ranks 2 --iters 100 --size $b -o "$W/pp" > /dev/null
    "$H" simulate --topo $T -i "$W/pp" --quiet -o "$W/ppn"
    "$H" simulate --topo $T -i "$W/pp" --ppn 2 --quiet -o "$W/pps"
    awk -v b=$b -v net="$(field "$W/ppn" total_ps)" -v shm="$(field "$W/pps" total_ps)" '
        function ser(x) { return int((x * 40 + 0)) }   # ps at 25 GB/s: x * 1e12 / 25e9 = 40 x
        function L(x,   n, last, w) {
            n = x ? int((x + 4095) / 4096) : 1
            last = x - (n - 1) * 4096; w = last < 64 ? 64 : last
            return (n - 1) * ser(4096) + 300000 + ser(w)
        }
        function cp(x) { return int((x * 100 + 0)) }    # ps at 10 GB/s
        BEGIN {
            rndv = b > 16384
            one = rndv ? 2 * L(0) + L(b) : L(b)
            sone = rndv ? 3 * 250000 + cp(b) : 250000 + cp(b)
            printf "| %d | %s | %.3f us | %.3f us | %.3f us | %.3f us |\n", b,
                rndv ? "rendezvous" : "eager", 200 * one / 1e6, net / 1e6, 200 * sone / 1e6, shm / 1e6
        }'
done
echo

# ---- 3D halo: mappings on a tapered fat-tree ---------------------------------------
TT=fattree:k=32,n=2,taper=2
echo "### 3D halo: mapping on a tapered fat-tree, explained by link loads"
echo
echo "4096 ranks (16x16x16 grid), 4 per node, on the 1024-node 32-ary 2-tree"
echo "tapered 2:1 (32 nodes and 16 up-links per leaf); 10 iterations of 10 us"
echo "computation and six 64 KiB faces (rendezvous).  Ranks are x-fastest, as"
echo "miniGhost decomposes: linear puts 4 consecutive x of a row on a node (a"
echo "quarter of the x-faces stay on the node) and half an x-y plane on a leaf"
echo "(only z-faces and two y-boundaries leave it); shift"
echo "moves that by 100 nodes, off the leaf boundaries; roundrobin puts ranks"
echo "1024 apart on a node (no neighbours together); random scatters them."
echo "Ground truth from"
echo "\`truth.bin\`: bytes on the tapered leaf up-links and the busy time of the"
echo "busiest link (which bounds the communication from below)."
echo
echo "\`$H gen halo3d --ranks 4096 --iters 10 --size 64K -o T; $H simulate --topo $TT --ppn 4 --map MAP -i T -o RUN\`"
echo
echo "| mapping | predicted time | time in MPI per rank | p99 latency | bytes on up-links | busiest link busy | intra-node messages |"
echo "|---|---|---|---|---|---|---|"
"$H" gen halo3d --ranks 4096 --iters 10 --size 64K -o "$W/halo" > /dev/null
for m in linear shift:100 roundrobin random; do
    "$H" simulate --topo $TT --ppn 4 --map $m -i "$W/halo" --quiet -o "$W/h-$m"
    up=$("$TL" "$W/h-$m" | awk '$1 == "up1" { print $3 }')
    busy=$("$TL" "$W/h-$m" | awk '$1 == "busiest" { print $3 }')
    msgs=$(awk '/"latency": \{/ { on = 1 } on && $1 == "\"messages\":" { gsub(/,/, "", $2); print $2; exit }' "$W/h-$m/app.json")
    all=$(awk '/"replay": \{/ { on = 1 } on && $1 == "\"messages\":" { gsub(/,/, "", $2); print $2; exit }' "$W/h-$m/app.json")
    awk -v m=$m -v t="$(field "$W/h-$m" total_ps)" -v c="$(field "$W/h-$m" comm_ps)" \
        -v p="$(awk '/"latency": \{/ { on = 1 } on && $1 == "\"p99_ps\":" { gsub(/,/, "", $2); print $2; exit }' "$W/h-$m/app.json")" -v up=$up -v busy=$busy -v net=$msgs -v all=$all '
        BEGIN { printf "| %s | %.1f us | %.1f us | %.2f us | %.2f GB | %.1f us | %.0f%% |\n", m, t / 1e6, c / 1e6, p / 1e6, up / 1e9, busy / 1e6, 100 * (all - net) / all }'
done
echo

# ---- Congestion Impact --------------------------------------------------------------
TC=fattree:k=16,n=2,taper=2
echo "### Congestion Impact on a latency-sensitive canary"
echo
echo "GPCNeT's canary (\`gen canary\`: per iteration a random ring exchange of"
echo "8 B with both neighbours, then an 8 B allreduce) on 64 randomly placed"
echo "nodes of the 256-node 16-ary 2-tree tapered 2:1, 100 iterations; GPCNeT's"
echo "congestors (4 KiB, back to back) on a fraction of the 192 free nodes."
echo "CI = p99 message latency congested / isolated (GPCNeT's definition);"
echo "bandwidth CI = time in MPI congested / isolated."
echo
echo "\`$H gen canary --ranks 64 --iters 100 -o T; $H simulate --topo $TC -i T --map random --background SPEC --congestion-impact -o RUN\`"
echo
echo "| background | congestor nodes | p99 isolated | p99 congested | CI latency | CI bandwidth | run time x |"
echo "|---|---|---|---|---|---|---|"
"$H" gen canary --ranks 64 --iters 100 -o "$W/can" > /dev/null
for bg in mixed:frac=0.1 mixed:frac=0.25 mixed:frac=0.5 mixed:frac=0.75 mixed:frac=1.0 \
          alltoall:frac=0.5 incast:frac=0.5 rma_incast:frac=0.5 rma_bcast:frac=0.5; do
    "$H" simulate --topo $TC -i "$W/can" --map random --background $bg --congestion-impact \
        --quiet -o "$W/ci"
    nodes=$(awk '/"background": \{/ { on = 1 } on && /"nodes": \[/ { n = 1; next } n && /\]/ { print c; exit } n { c++ }' "$W/ci/app.json")
    iso=$(awk '/"isolated": \{/ { on = 1 } on && $1 == "\"p99_ps\":" { gsub(/,/, "", $2); print $2; exit }' "$W/ci/app.json")
    con=$(awk '/"congested": \{/ { on = 1 } on && $1 == "\"p99_ps\":" { gsub(/,/, "", $2); print $2; exit }' "$W/ci/app.json")
    awk -v bg=$bg -v n=$nodes -v i=$iso -v c=$con -v l="$(field "$W/ci" latency_p99)" \
        -v b="$(field "$W/ci" bandwidth)" -v r="$(field "$W/ci" runtime)" '
        BEGIN { printf "| `%s` | %d | %.2f us | %.2f us | %.1f | %.2f | %.2f |\n", bg, n, i / 1e6, c / 1e6, l, b, r }'
done
echo

# ---- real traces ------------------------------------------------------------------------
echo "### Traces of real runs"
echo
echo "The libtrace test programs recorded under both MPIs with \`hopscope record\`"
echo "(4 ranks; halo3d 8) and replayed on \`fattree:k=4,n=2\`: every message"
echo "matched, nothing left over (\`tests/integration/replay_mpi.sh\` checks this"
echo "and the per-tag message counts in \`make check\`)."
echo
echo "| MPI | program | point-to-point messages recorded | messages replayed (incl. collectives' steps) | one-sided ops | status |"
echo "|---|---|---|---|---|---|"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
for mpi in openmpi mpich; do
    [ -x "$BUILD/tests/mpi/$mpi/ring" ] || continue
    case $mpi in openmpi) L="mpirun.openmpi --oversubscribe" ;; *) L=mpirun.mpich ;; esac
    for prog in "ring 8 1000" "halo3d 3 8" "incast 6 3000" "nbany 256" "persist 5 40000" \
                "alltoall 2 4" "rma 3" "split 2" "threads 2"; do
        set -- $prog
        np=4; [ $1 = halo3d ] && np=8
        "$H" record -o "$W/t" --force -- $L -np $np "$BUILD/tests/mpi/$mpi/$@" > /dev/null 2>&1 || continue
        sent=$("$H" trace stats "$W/t" | awk '/^point-to-point:/ { print $2 }')
        "$H" simulate --topo fattree:k=4,n=2 -i "$W/t" --quiet -o "$W/tr" 2> /dev/null || true
        all=$(awk '/"replay": \{/ { on = 1 } on && $1 == "\"messages\":" { gsub(/,/, "", $2); print $2; exit }' "$W/tr/app.json")
        echo "| $mpi | \`$prog\` | $sent | $all | $(field "$W/tr" rma_ops) | $(field "$W/tr" status) |"
    done
done
