#!/bin/sh
# The capture below MPI (hopscope record --wire, libhopscope-wire.so) under
# MPICH 4.0 ch4:ucx and Open MPI 4.1 with pml ucx and osc ucx:
#   - the application's output is identical with and without it, the trace
#     checks clean at the MPI level, every rank has a complete wire file;
#   - every MPI point-to-point send of tests/mpi/wire.c (0 B .. 1 MiB, across
#     UCX's eager and rendezvous thresholds; send, isend, ssend) has a UCX tag
#     send of exactly its size to the same world rank inside the MPI call
#     (endpoint-to-rank mapping checked pair by pair), per pair the wire
#     bytes are at least the MPI payload, bcast/allreduce/alltoall on world,
#     a split and a dup move at least (P-1) x n bytes (tests/helpers/wire_check);
#   - exact figures that follow from the program: the MPI payload per pair,
#     the one-sided operations Open MPI's osc ucx makes, and those of osc rdma
#     over btl ofi (libfabric sockets provider: fi_write, fi_read,
#     fi_fetch_atomic, fi_compare_atomic, on a scalable endpoint's context);
#   - real applications (halo3d in C, ring in Fortran 90, Debian's hpcc)
#     give the same results with --wire (halo3d also over mtl ofi);
#   - ucp_worker_progress runs and stream receive completions (ucpself),
#     UCX's eager/rendezvous protocol per send, app.json of simulate --wire.
# Open MPI only selects pml ucx on this machine's transports (shm, tcp,
# self; no InfiniBand) with pml_ucx_tls/devices = any (docs/wire.md).
. tests/integration/lib.sh
. tests/integration/libtrace.inc

if [ ! -f "$BUILD/lib/libhopscope-wire.so" ]; then
    if pkg-config --exists ucx 2>/dev/null; then
        t_fail "libhopscope-wire.so built"
    else
        echo "ok - skip: libhopscope-wire.so not built (UCX headers absent: libucx-dev)"
    fi
    exit $t_failed
fi
UCX_OMPI="--mca pml ucx --mca osc ucx --mca pml_ucx_tls any --mca pml_ucx_devices any"
OFI_OMPI="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp"
# Open MPI's one-sided path over libfabric: osc rdma on btl ofi (sockets
# provider; tcp and udp do not run it here, docs/wire.md); point-to-point
# goes through ob1 and btl tcp, which is not below-MPI captured.
BTLOFI_OMPI="--mca pml ob1 --mca osc rdma --mca btl self,tcp,ofi --mca btl_ofi_provider_include sockets"
# Two-sided point-to-point through btl ofi: no other BTL between ranks
# (self only for a rank to itself), btl_ofi_mode 2 (one- and two-sided),
# udp provider (ofi_rxd; sockets gives the same records, about 5x slower
# here; tcp's ofi_rxm is not offered: "unable to reach each other").
BTLOFI2_OMPI="--mca pml ob1 --mca btl self,ofi --mca btl_ofi_mode 2 --mca btl_ofi_provider_include udp"
CHECK=$BUILD/tests/helpers/wire_check

launch() {
    case $1 in
        openmpi) echo "$MPIRUN_OMPI $UCX_OMPI" ;;
        openmpi-ofi) echo "$MPIRUN_OMPI $OFI_OMPI" ;;
        openmpi-btlofi) echo "$MPIRUN_OMPI $BTLOFI_OMPI" ;;
        openmpi-btlofi2) echo "$MPIRUN_OMPI $BTLOFI2_OMPI" ;;
        mpich) echo "$MPIRUN_MPICH" ;;
    esac
}

# wrun NAME MPI NP EXE ARGS...: record with --wire-protocol (--wire, and UCX's
# protocol per send) and run plainly; same output.
wrun() {
    name=$1 mpi=$2 np=$3 exe=$4
    shift 4
    dir=$T_TMP/$name
    l=$(launch "$mpi")
    if ! timeout 300 "$HOPSCOPE" record --wire-protocol -o "$dir" -- $l -np "$np" "$exe" "$@" \
            >"$dir.rec.out" 2>"$dir.rec.err"; then
        t_fail "$name: recorded run with --wire" "$(tail -5 "$dir.rec.err")"
        return 1
    fi
    if ! timeout 300 $l -np "$np" "$exe" "$@" >"$dir.plain.out" 2>"$dir.plain.err"; then
        t_fail "$name: plain run" "$(tail -5 "$dir.plain.err")"
        return 1
    fi
    grep -v '^hopscope: ' "$dir.rec.out" >"$dir.app.out"
    if cmp -s "$dir.app.out" "$dir.plain.out"; then
        t_ok "$name: output identical with and without --wire"
    else
        t_fail "$name: output identical with and without --wire" \
            "with: $(head -3 "$dir.app.out")" "without: $(head -3 "$dir.plain.out")"
    fi
    t_grep "$name: record summary says complete" "; complete$" "$dir.rec.out"
    if "$HOPSCOPE" trace check "$dir" >"$dir.check" 2>&1; then
        t_ok "$name: MPI-level trace check clean"
    else
        t_fail "$name: MPI-level trace check clean" "$(head -5 "$dir.check")"
    fi
    nw=$(ls "$dir" | grep -c '^wire-.*\.hst$')
    t_eq "$name: one wire file per rank" "$np" "$nw"
    # every wire file ends with its end record (the dump prints a note otherwise)
    "$HOPSCOPE" trace dump --wire "$dir" >"$dir.wdump" 2>&1
    t_eq "$name: wire files read completely" 0 "$(grep -c '^# rank\|hopscope trace:' "$dir.wdump")"
    return 0
}

# Sum of the p2p sizes of tests/mpi/wire.c.
SUM=$((0 + 1 + 64 + 1000 + 4096 + 8192 + 16384 + 65536 + 262144 + 1048576))
P=4
# openmpi-ofi: Open MPI's mtl ofi over libfabric's tcp provider (ofi_rxm),
# captured through the ops tables of the objects fi_fabric opens.
OFI=
[ -n "$(nm -D "$BUILD/lib/libhopscope-wire.so" | awk '$2 == "T" && $3 == "fi_fabric"')" ] &&
    [ -x "$BUILD/tests/mpi/openmpi/wire" ] && OFI=openmpi-ofi
for m in $(lt_mpis) $OFI; do
    n=wire-$m
    exe=$BUILD/tests/mpi/${m%-ofi}/wire
    wrun $n $m $P "$exe" || continue
    "$CHECK" "$T_TMP/$n" >"$T_TMP/$n.wcheck" 2>&1
    t_eq "$n: wire_check passes" 0 $?
    v() { awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/$n.wcheck"; }
    t_eq "$n: MPI point-to-point sends (3 forms x 10 sizes x 3 peers, and back)" 120 "$(v sends)"
    t_eq "$n: each has a tag send of exactly its size to its rank" 120 "$(v exact)"
    t_eq "$n: no send mapped to another rank" 0 "$(v wrong_peer)"
    t_eq "$n: every endpoint maps to a world rank" 0 "$(v endpoints_unknown)"
    t_eq "$n: bcast/allreduce/alltoall groups checked (3 sizes x 3 calls x 2 comm sizes)" \
        18 "$(v collective_groups)"
    t_eq "$n: none moved less than (P-1) x n" 0 "$(v collective_low)"
    # UCX's protocol per tag send to another rank (the completion's flags, or
    # completed in the posting call: eager): every send of at most 1000 B
    # eager, every 1 MiB send whose protocol is known rendezvous
    "$HOPSCOPE" trace stats --wire "$T_TMP/$n" >"$T_TMP/$n.wtxt0" 2>&1
    if [ "$m" != openmpi-ofi ]; then
        awk '{ split($1, a, "."); r = a[1] }
             $4 == "wire_op" && /op=tag_send/ { p = $5; sub("peer=", "", p); b = ""; q = ""
                 for (i = 5; i <= NF; i++) { if ($i ~ /^bytes=/) b = substr($i, 7); if ($i ~ /^req=/) q = $i }
                 if (p != r) { B[r ":" q] = b; I[r ":" q] = / immediate/ } }
             $4 == "wire_done" { q = ""; for (i = 5; i <= NF; i++) if ($i ~ /^req=/) q = $i
                 if (/ rndv/) R[r ":" q] = 1; else if (/ eager/) E[r ":" q] = 1 }
             END { for (k in B) { c = I[k] || E[k] ? "eager" : R[k] ? "rndv" : "unknown"; s = B[k] + 0
                       n[(s <= 1000 ? "small" : s == 1048576 ? "1MiB" : "mid") "_" c]++ }
                   printf "small_eager %d small_other %d big_rndv %d big_eager %d\n", n["small_eager"],
                       n["small_rndv"] + n["small_unknown"], n["1MiB_rndv"], n["1MiB_eager"] }' \
            "$T_TMP/$n.wdump" >"$T_TMP/$n.proto"
        pv() { awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$T_TMP/$n.proto"; }
        t_eq "$n: every tag send of at most 1000 B to another rank was eager" 0 "$(pv small_other)"
        [ "$(pv small_eager)" -gt 0 ] && t_ok "$n: eager sends seen" ||
            t_fail "$n: eager sends seen" "$(cat "$T_TMP/$n.proto")"
        t_eq "$n: no 1 MiB tag send was eager" 0 "$(pv big_eager)"
        [ "$(pv big_rndv)" -gt 0 ] && t_ok "$n: 1 MiB sends went by rendezvous" ||
            t_fail "$n: 1 MiB sends went by rendezvous" "$(cat "$T_TMP/$n.proto")"
        t_grep "$n: stats --wire: tag sends by protocol" \
            "tag sends by protocol: eager [0-9]+ \(0 B \.\. [0-9]+ B\), rendezvous [1-9]" "$T_TMP/$n.wtxt0"
    fi
    "$HOPSCOPE" trace stats --wire --json "$T_TMP/$n" >"$T_TMP/$n.wjson"
    t_eq "$n: stats --wire exits 0" 0 $?
    # MPI payload 0 -> 1 and 1 -> 0, straight from the program.
    pair() { tr -d ' \n' <"$T_TMP/$n.wjson" | grep -o "{\"src\":$1,\"dst\":$2,[^}]*}" |
             grep -o "\"$3\":[0-9]*" | cut -d: -f2; }
    t_eq "$n: MPI bytes 0 -> 1" $((3 * SUM)) "$(pair 0 1 mpi_bytes)"
    t_eq "$n: MPI bytes 1 -> 0" $SUM "$(pair 1 0 mpi_bytes)"
    "$HOPSCOPE" trace stats --wire "$T_TMP/$n" >"$T_TMP/$n.wtxt"
    t_grep "$n: allreduce 1 MiB on 4 ranks classified" "allreduce 1 MiB on 4 ranks: [a-z]" \
        "$T_TMP/$n.wtxt"
    t_grep "$n: alltoall 64 KiB on 4 ranks: pairwise exchange, 3 steps" \
        "alltoall 64 KiB on 4 ranks: pairwise exchange, 3 steps" "$T_TMP/$n.wtxt"
    # simulate --wire replays it to the end, every peer known, and puts at
    # least the MPI point-to-point payload between distinct ranks on the network
    "$HOPSCOPE" simulate --topo fattree:k=4 --ppn 1 -i "$T_TMP/$n" --wire -o "$T_TMP/$n.run" \
        >"$T_TMP/$n.sim" 2>&1
    t_eq "$n: simulate --wire exits 0" 0 $?
    t_grep "$n: simulate --wire: no peer unknown" "not replayed: 0 with an unknown peer" \
        "$T_TMP/$n.sim"
    mb=$(sed -n 's/^messages *[0-9]* (\([0-9]*\)\.[0-9]* MB).*/\1/p' "$T_TMP/$n.sim")
    if [ "${mb:-0}" -ge 16 ]; then t_ok "$n: simulate --wire moves >= the 16.9 MB of MPI payload"
    else t_fail "$n: simulate --wire moves >= the 16.9 MB of MPI payload" "$mb MB"; fi
    w=$n   # t_check sets n
    t_check "$n: its run directory analyses" "$HOPSCOPE" analyze "$T_TMP/$n.run" -o "$T_TMP/$n.an"
    n=$w
    # app.json: the analysis reads its one phase; its matrix holds the bytes replayed
    t_grep "$n: the analysis has app.json's phase" '"wire transfers"' "$T_TMP/$n.an"
    # its pair 0 -> 1 carries at least the MPI payload 0 -> 1 (3 forms x the sizes)
    b01=$(awk '/"comm": \[/ { on = 1; next } on && /^  \]/ { on = 0 }
               on && /^      [0-9]/ { v[k++ % 4] = $1 + 0; if (k % 4 == 0 && v[0] == 0 && v[1] == 1) print v[2] }' \
          "$T_TMP/$n.run/app.json")
    if [ "${b01:-0}" -ge $((3 * SUM)) ]; then t_ok "$n: app.json comm 0 -> 1 >= the MPI payload"
    else t_fail "$n: app.json comm 0 -> 1 >= the MPI payload" "${b01:-none} < $((3 * SUM))"; fi
done

# Open MPI's osc ucx: 4 puts of 4096 B, 4 gets of 8192 B, one accumulate each
# (a fetching atomic loop of 8 B: compare-and-swap on the 64-bit word).
if [ -f "$T_TMP/wire-openmpi.wtxt" ]; then
    n=wire-openmpi
    op() { awk -v o="$1" '$1 == o { print $2, $3 }' "$T_TMP/$n.wtxt"; }
    t_eq "$n: osc ucx puts: 4 x 4096 B plus 4 x 8 B of accumulate" "8 16416" "$(op put)"
    t_eq "$n: osc ucx gets: 4 x 8192 B plus 4 x 8 B of accumulate" "8 32800" "$(op get)"
fi

# Open MPI's osc rdma over btl ofi (libfabric sockets provider), window
# from MPI_Win_create so that every access goes through the BTL: each rank's
# put of 4096 B is one fi_write, its get of 8192 B one fi_read, and its
# MPI_Accumulate and MPI_Fetch_and_op of one uint64 are each one
# fi_fetch_atomic of 8 B (FI_SUM = 2), its MPI_Compare_and_swap one
# fi_compare_atomic of 8 B (FI_CSWAP = 12; the operand, as for UCX), all to
# the right neighbour: the calls and bytes of the MPI-level trace.
if [ -n "$OFI" ]; then
    n=wire-openmpi-btlofi
    if wrun $n openmpi-btlofi $P "$BUILD/tests/mpi/openmpi/wire" create; then
        "$HOPSCOPE" trace stats --wire "$T_TMP/$n" >"$T_TMP/$n.wtxt" 2>&1
        "$HOPSCOPE" trace stats "$T_TMP/$n" >"$T_TMP/$n.txt" 2>&1
        op() { awk -v o="$1" '$1 == o { print $2, $3 }' "$T_TMP/$n.wtxt"; }
        call() { awk -v o="$1" -v c="$2" '$1 == o { print $2, $c }' "$T_TMP/$n.txt"; }
        t_eq "$n: btl ofi puts: 4 x 4096 B" "4 16384" "$(op put)"
        t_eq "$n: btl ofi gets: 4 x 8192 B" "4 32768" "$(op get)"
        t_eq "$n: btl ofi fetching atomics: 12 x 8 B" "12 96" "$(op atomic_fetch)"
        t_eq "$n: wire puts = MPI_Put calls and bytes" "$(call put 3)" "$(op put)"
        t_eq "$n: wire gets = MPI_Get calls and bytes" "$(call get 4)" "$(op get)"
        # operand bytes: what accumulate and fetch_and_op send, what
        # compare_and_swap receives (its sent bytes count the compare value too)
        t_eq "$n: wire atomics = accumulate + fetch_and_op + compare_and_swap calls, operand bytes" \
            "$(awk '$1 == "accumulate" || $1 == "fetch_and_op" { c += $2; b += $3 }
                    $1 == "compare_and_swap" { c += $2; b += $4 } END { print c, b }' "$T_TMP/$n.txt")" \
            "$(op atomic_fetch)"
        t_eq "$n: no other operation below MPI" 3 \
            "$(awk '/^  operation/ { on = 1; next } /^  transfers/ { on = 0 } on' "$T_TMP/$n.wtxt" | wc -l)"
        "$HOPSCOPE" trace dump --wire "$T_TMP/$n" >"$T_TMP/$n.wd" 2>&1
        ops() { awk -v t="$1" '/op=atomic_fetch/ && $0 ~ "utag=" t " " { split($1, a, "."); p = $5; sub("peer=", "", p); print a[1] ">" p }' "$T_TMP/$n.wd" | sort | tr '\n' ' '; }
        t_eq "$n: two FI_SUM atomics per rank, to its right neighbour" \
            "0>1 0>1 1>2 1>2 2>3 2>3 3>0 3>0 " "$(ops 0x2)"
        t_eq "$n: one FI_CSWAP per rank, to its right neighbour" "0>1 1>2 2>3 3>0 " "$(ops 0xc)"
        t_eq "$n: every operation completed (a CQ entry each)" \
            "$(grep -c ' wire_op ' "$T_TMP/$n.wd")" "$(grep -c ' wire_done ' "$T_TMP/$n.wd")"
    fi
fi

# Open MPI's two-sided point-to-point over btl ofi (pml ob1, btl self,ofi,
# btl_ofi_mode 2, udp provider): ob1 sends each message as a tagged
# libfabric message of its header and payload when it fits the eager size
# (here up to 1000 B), otherwise as a header alone after which the
# receiver reads the payload with fi_read (RGET).  wire_check --btl: each
# of the 120 MPI sends (3 forms x 10 sizes from rank 0 to each of 3 peers,
# 10 back from each) has within its call a tag send to the same world rank
# that carries it, and each of the 72 MPI_Recv of 4096 B or more (6 sizes x
# 3 peers x 4 messages) reads exactly its size from its source.
if [ -n "$OFI" ]; then
    n=wire-openmpi-btlofi2
    if wrun $n openmpi-btlofi2 $P "$BUILD/tests/mpi/openmpi/wire"; then
        "$CHECK" --btl "$T_TMP/$n" >"$T_TMP/$n.wcheck" 2>&1
        t_eq "$n: wire_check --btl passes" 0 $?
        v() { awk -v k="$1" '$1 == k { print $2 }' "$T_TMP/$n.wcheck"; }
        t_eq "$n: MPI point-to-point sends" 120 "$(v sends)"
        t_eq "$n: each carried by a tag send to its rank" 120 "$(v exact)"
        t_eq "$n: no send carried to another rank" 0 "$(v wrong_peer)"
        t_eq "$n: receives of >= 4096 B that read the payload (RGET)" 72 "$(v get_recvs)"
        t_eq "$n: each read exactly its size from its source" 72 "$(v get_exact)"
        t_eq "$n: per pair, wire bytes >= MPI payload" 0 "$(v below_mpi)"
    fi
fi

# ucp_worker_progress and stream receives (tests/wire/ucpself: a thread
# that makes no MPI call polls an idle worker exactly 12345 times; a stream
# of 65536 B to the rank's own worker, the receive posted first): the
# polling thread's progress records add up to exactly 12345 calls, none of
# which made progress, each record's time inside at most its span; the
# stream receive is recorded with the buffer's size and completed (a
# wire_done from the stream callback) with the length received; callbacks
# with user data: a cancelled receive, a send freed before it completed,
# a receive whose callback runs on another thread.
if [ -x "$BUILD/tests/wire/ucpself" ]; then
    n=ucpself-wire
    if wrun $n mpich 1 "$BUILD/tests/wire/ucpself" 12345 65536; then
        t_grep "$n: the stream arrived intact" "stream of 65536 bytes received intact" \
            "$T_TMP/$n.app.out"
        wd=$T_TMP/$n.wdump
        # dump fields: RANK.THREAD TIME +SPANus KIND key=value...
        # per thread: calls and progressed, summed over its records
        awk '$4 == "wire_progress" { split($1, a, "."); c[a[2]] += substr($5, 7);
             p[a[2]] += substr($6, 12) } END { for (k in c) print c[k], p[k] }' "$wd" \
            >"$T_TMP/$n.prog"
        t_eq "$n: one thread's progress records: 12345 calls, none made progress" 1 \
            "$(grep -c '^12345 0$' "$T_TMP/$n.prog")"
        t_eq "$n: no progress record claims more time inside than its span" 0 \
            "$(awk '$4 == "wire_progress" { sp = substr($3, 2) + 0; i = substr($7, 8) + 0;
                    if (i > sp + 0.0005) bad++ } END { print bad + 0 }' "$wd")"
        t_eq "$n: stream_recv and stream_send of 65536 B" "stream_recv 65536 stream_send 65536" \
            "$(awk '$4 == "wire_op" && /op=stream/ { for (i = 5; i <= NF; i++) {
                    if ($i ~ /^op=/) o = substr($i, 4); if ($i ~ /^bytes=/) b = substr($i, 7) }
                    printf "%s%s %s", sep, o, b; sep = " " }' "$wd")"
        rq=$(awk '$4 == "wire_op" && /op=stream_recv/ { for (i = 5; i <= NF; i++)
                    if ($i ~ /^req=/) print $i }' "$wd")
        t_eq "$n: the stream receive completed with the length received" "bytes=65536" \
            "$(awk -v r="$rq" '$4 == "wire_done" { hit = 0; b = "";
                    for (i = 5; i <= NF; i++) { if ($i == r) hit = 1; if ($i ~ /^bytes=/) b = $i }
                    if (hit) print b }' "$wd")"
        # callbacks with user data (the nbx user-data slots): each original
        # callback got its own user data and status, with and without --wire
        t_grep "$n: cancel, freed send, other thread: every callback got its own user data" \
            "user data: cancel 1, freed send's callback 0, its data intact, other thread 1; every callback got its own" \
            "$T_TMP/$n.app.out"
        # wdone TAG: the wire_done lines of the tag receive with that UCX tag
        wdone() { awk -v t="$1" '$4 == "wire_op" && /op=tag_recv/ && $0 ~ "utag=" t " " {
                    for (i = 5; i <= NF; i++) if ($i ~ /^req=/) { q = $i; th[q] = $1 } }
                 $4 == "wire_done" { for (i = 5; i <= NF; i++) if ($i == q) {
                    o = ""; for (j = 5; j <= NF; j++) if ($j != q) o = o " " $j
                    print (th[q] == $1 ? "same-thread" : "other-thread") o } }' "$wd"; }
        t_eq "$n: the cancelled receive completed as cancelled, no bytes" "same-thread cancelled" \
            "$(wdone 0x71)"
        t_eq "$n: the receive of the freed send completed with its 100000 B" \
            "same-thread bytes=100000 utag=0x72" "$(wdone 0x72)"
        t_eq "$n: the freed send itself: no completion (UCP dropped its callback)" 0 \
            "$(awk '$4 == "wire_op" && /op=tag_send/ && /utag=0x72 / { for (i = 5; i <= NF; i++)
                    if ($i ~ /^req=/) q = $i } $4 == "wire_done" { for (i = 5; i <= NF; i++)
                    if ($i == q) c++ } END { print c + 0 }' "$wd")"
        t_eq "$n: the receive completed by another thread's callback, recorded there" \
            "other-thread bytes=3000 utag=0x73" "$(wdone 0x73)"
        "$HOPSCOPE" trace stats --wire "$T_TMP/$n" >"$T_TMP/$n.wtxt" 2>&1
        t_eq "$n: stats --wire counts every progress call of the dump" \
            "$(awk '$4 == "wire_progress" { c += substr($5, 7) } END { print c + 0 }' "$wd")" \
            "$(sed -n 's/.*ucp_worker_progress: \([0-9]*\) calls.*/\1/p' "$T_TMP/$n.wtxt")"
    fi
fi

# MPI_THREAD_MULTIPLE: 4 threads per rank each exchange 200 messages with
# a neighbour (tests/mpi/threads.c); each thread's UCX sends carry that
# thread's index in the rank file, so every send still finds its own.
for m in $(lt_mpis); do
    n=threads-wire-$m
    wrun $n $m 3 "$BUILD/tests/mpi/$m/threads" 4 200 64 || continue
    "$CHECK" "$T_TMP/$n" >"$T_TMP/$n.wcheck" 2>&1
    t_eq "$n: wire_check passes" 0 $?
    t_eq "$n: 2400 sends, each with its tag send on its thread" "sends 2400 exact 2400" \
        "$(awk '$1 == "sends" || $1 == "exact" { printf "%s%s %s", sep, $1, $2; sep = " " }' \
            "$T_TMP/$n.wcheck")"
done

# Real applications: same results with --wire.
for m in $(lt_mpis); do
    wrun halo3d-wire-$m $m 8 "$BUILD/tests/mpi/$m/halo3d" 4 6
    wrun ring_f90-wire-$m $m 3 "$BUILD/tests/mpi/$m/ring_f90" 6 25
done
# and through libfabric (Open MPI's mtl ofi over the tcp provider)
[ -n "$OFI" ] && wrun halo3d-wire-openmpi-ofi openmpi-ofi 8 "$BUILD/tests/mpi/openmpi/halo3d" 4 6
HPCC=$(command -v hpcc)
if [ -n "$HPCC" ]; then
    H=$(cd "$(dirname "$HOPSCOPE")" && pwd)/$(basename "$HOPSCOPE")
    (
        cd "$T_TMP" || exit 1
        sed -e 's/^1000         Ns/400          Ns/' -e 's/^80           NBs/40           NBs/' \
            /usr/share/doc/hpcc/examples/_hpccinf.txt >hpccinf.txt
        timeout 300 "$H" record --wire -o "$T_TMP/hpcc-wire" -- $MPIRUN_OMPI $UCX_OMPI -np 4 \
            "$HPCC" >hpcc-rec.out 2>hpcc-rec.err
        echo "rc $?" >hpcc-rc.txt
    )
    t_eq "hpcc (Open MPI, pml ucx) exits 0 under record --wire" "rc 0" "$(cat "$T_TMP/hpcc-rc.txt")"
    t_grep "hpcc finished all its tests" "End of HPC Challenge tests" "$T_TMP/hpccoutf.txt"
    t_grep "hpcc: HPL residual check passed" "N\)= .* PASSED" "$T_TMP/hpccoutf.txt"
    t_grep "hpcc: record summary complete" "; complete$" "$T_TMP/hpcc-rec.out"
    "$HOPSCOPE" trace stats --wire "$T_TMP/hpcc-wire" >"$T_TMP/hpcc-wire.txt" 2>&1
    t_eq "hpcc: stats --wire reads it" 0 $?
    # plain --wire does not ask UCX for the protocol (0.3-0.4 us per send):
    # HPL's large sends, rendezvous when asked, are then never named so
    t_grep "hpcc: plain --wire names no rendezvous (protocol query off)" \
        "tag sends by protocol: .*rendezvous 0, unknown [1-9]" "$T_TMP/hpcc-wire.txt"
fi
exit $t_failed
