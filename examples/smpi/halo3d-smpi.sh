#!/bin/sh
# The SMPI path of docs/case-studies.md ("An application at a scale this
# machine cannot run"): examples/halo3d/halo3d.c, unmodified, compiled with
# SimGrid's smpicc and run by smpirun as 1024 MPI ranks in one process on
# this machine with time-independent tracing; the trace imported into
# hopscope, replayed on a 1024-node dragonfly, analysed and rendered.
#
#   examples/smpi/halo3d-smpi.sh [WORKDIR]     (default /tmp/hopscope-smpi)
#   env: RANKS (1024), N (32: 8 KiB faces), ITERS (20), SPEEDUP (100),
#        TOPO (dragonfly:a=8,p=4,h=4,g=32), HOPSCOPE (build/bin/hopscope),
#        FOLD (unset; BYTES: SMPI folds every allocation of at least BYTES
#        into one shared copy, --cfg=smpi/auto-shared-malloc-thresh: far
#        less memory, same communication, meaningless numerical results)
#
# Prints the wall time and peak resident memory of every step (which for
# smpirun counts folded memory once per rank mapping it) and the sizes of
# the traces.  Needs libsimgrid-dev (smpicc, smpirun); the platform file is
# written here (Debian's package ships none).
set -eu
W=${1:-/tmp/hopscope-smpi}
RANKS=${RANKS:-1024} N=${N:-32} ITERS=${ITERS:-20} SPEEDUP=${SPEEDUP:-100}
TOPO=${TOPO:-dragonfly:a=8,p=4,h=4,g=32}
H=$(realpath "${HOPSCOPE:-build/bin/hopscope}")
SRC=$(realpath examples/halo3d/halo3d.c)
for t in smpicc smpirun; do
    command -v $t >/dev/null || { echo "skip: $t not found (apt-get install libsimgrid-dev)"; exit 0; }
done
mkdir -p "$W"
cd "$W"
rm -rf halo.txt halo.txt_files halo.trace halo-fast.trace halo.run halo-fast.run halo-fast.viz

# step NAME CMD...: runs CMD, prints its wall time and peak resident memory.
step() {
    name=$1
    shift
    /usr/bin/time -f "%e %M" -o time.txt "$@" >"$name.log" 2>&1 ||
        { echo "$name failed:"; tail -5 "$name.log"; exit 1; }
    read -r s kb <time.txt
    printf '%-10s %8s s %8s MB\n' "$name" "$s" "$((kb / 1024))"
}

# One host per rank: SMPI's platform (the simulated machine SimGrid itself
# would predict on; hopscope only uses the trace).
last=$((RANKS - 1))
cat >platform.xml <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node-" suffix="" radical="0-$last" speed="1Gf" bw="12.5GBps" lat="1us"
           bb_bw="400GBps" bb_lat="1us"/>
</platform>
XML
seq 0 "$last" | sed 's/^/node-/' >hosts

step smpicc smpicc -O2 -o halo3d "$SRC"
# -trace-ti: one action file per rank under halo.txt_files/, index halo.txt.
# Computation is measured on this host and written as flops at SMPI's
# default smpi/host-speed (20000 flop/s), which 'trace import' undoes.
step smpirun timeout 1800 smpirun -np "$RANKS" -platform platform.xml -hostfile hosts \
    -trace-ti --cfg=tracing/filename:halo.txt --log=root.thresh:warning \
    ${FOLD:+--cfg=smpi/auto-shared-malloc-thresh:$FOLD} \
    ./halo3d -n "$N" -i "$ITERS" -r 5 -q
grep checksum smpirun.log || true
echo "SMPI trace: $(du -sk halo.txt_files | cut -f1) KiB in $(ls halo.txt_files | wc -l) files," \
     "$(cat halo.txt_files/* | wc -l) lines"

step import "$H" trace import smpi halo.txt -o halo.trace
echo "hopscope trace: $(du -sk halo.trace | cut -f1) KiB"
sed 's/^/  /' import.log
# The same trace on a machine that computes SPEEDUP times faster.
fast=$(awk "BEGIN { print 20000 * $SPEEDUP }")
step import-fast "$H" trace import smpi halo.txt -o halo-fast.trace --flops "$fast"

for v in halo halo-fast; do
    step "sim:$v" "$H" simulate --topo "$TOPO" -i "$v.trace" -o "$v.run"
    grep -E '^(predicted|per rank|latency) ' "sim:$v.log" | sed 's/^/  /'
    step "ana:$v" "$H" analyze "$v.run"
    sed -n '/^Findings/,/^Phases/p' "ana:$v.log" | sed '$d' | sed 's/^/  /'
    sed -n '/^Phases:/,/^Windows/p' "ana:$v.log" | sed 's/^/  /'
done
step render "$H" render halo-fast.run -o halo-fast.viz
echo "report: $W/halo-fast.viz/report.html"
