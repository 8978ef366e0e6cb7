#!/bin/sh
# hash/ benchmarks: GF multiply, NIC counter update (and where its time goes
# at k=20), WHT against same-width references, naive vs fast decode.
set -eu
BUILD=$1; OUT=$2
load=$(cut -d' ' -f1-3 /proc/loadavg)
"$BUILD/bench/bench_hash" 5 > "$OUT"
cat >> "$OUT" <<NOTES

Load average when this run started: $load (on $(nproc) cores; the machine is
shared).  Times are thread CPU time, so descheduling does not count, but the
other tenants' use of the shared caches and memory does: read the ratios
measured in the same run rather than the absolute figures.

WHT: hopscope's transform (hash/wht.c) and the references share FFHT's shape
(lowest levels inside a register, three levels per pass, recursion down to
16 KiB blocks); the references are float transforms written with AVX2
intrinsics in bench/bench_hash.c from FFHT's published description.  Both
sides use 256-bit AVX2 even where the CPU has AVX-512, so that lanes are the
same width.  The float64 reference runs at about the 1.02 ms that FFHT's own
float64 transform took for 2^20 on this machine (issue 20), where hopscope's
previous radix-4 transform took 1.5-2.0 ms.  hs_decode_fast uses the int32
transform when an array's sum of |counter| is at most INT32_MAX (then no
butterfly can leave int32), the int64 one otherwise.

NIC counter update at k=20: the packets' counter cells are uniform over 16 MiB,
beyond L2, so each update waits on a miss; sorted by cell, the same updates
are the compute-only bound.  Prefetching the cells of the packets a few dozen
ahead (hs_counters_prefetch for a caller that knows the packets in advance,
built into hs_counters_from_samples) overlaps those misses.  No hardware
counter could confirm the misses: the container has no CPU PMU.  How much
the misses cost depends on the other tenants: on 2026-11-24, in two runs
of this benchmark and three of the same loops in a scratch program, the
random-order update took 13-47 ns (sorted: 5.5 ns), the prefetching batch
9.4-10.9 ns and the update with hs_counters_prefetch 11.5-13.4 ns.
NOTES
