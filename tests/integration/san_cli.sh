#!/bin/sh
# The hopscope command built with ASan+UBSan ($BUILD/san/bin/hopscope) driven
# through every stage and every reader of outside input, on small inputs
# (bounded: each call under a timeout): run on a 4-rank MPICH job (record,
# simulate, analyze, render), gen, trace stats/dump/check, topo,
# simulate (synthetic and replay with mapping and background), analyze with
# a phases file, render, whatif, run's option checks, and refused inputs.
# A sanitizer report aborts the process (tests/run.sh sets abort_on_error
# and halt_on_error), which this script sees as exit status >= 128 or as
# the report's text on stderr.
. tests/integration/lib.sh
H="$BUILD/san/bin/hopscope"
T="$T_TMP"
TO="timeout 300"

# san NAME WANT_RC CMD...: runs the sanitized command; checks the exit
# status and that no sanitizer spoke.
san() {
    n=$1; want=$2; shift 2
    $TO "$H" "$@" >"$T/out" 2>"$T/err"; rc=$?
    if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T/err"; then
        t_fail "asan: $n" "$(grep -E 'ERROR:|runtime error:|#[0-9] ' "$T/err" | head -8)"
    elif [ "$rc" -ne "$want" ]; then
        t_fail "asan: $n" "exit $rc, expected $want" "$(tail -3 "$T/err")"
    else
        t_ok "asan: $n"
    fi
}

[ -x "$H" ] || { t_fail "sanitized hopscope built" "$H missing"; exit 1; }
san "version" 0 --version
san "help simulate" 0 help simulate
san "gen halo3d" 0 gen halo3d --ranks 16 --iters 3 --size 16K -o "$T/halo" --quiet
san "gen incast" 0 gen incast --ranks 8 --iters 2 -o "$T/inc" --quiet
san "trace stats" 0 trace stats "$T/halo"
san "trace stats --json" 0 trace stats --json "$T/halo"
san "trace dump" 0 trace dump --limit 50 "$T/halo"
san "trace check" 0 trace check "$T/halo"
for spec in fattree:k=4,n=3 dragonfly:a=4,p=2,h=2,g=9 torus:4x4x4 mesh:4x4 \
            file:examples/viz/leafspine.topo; do
    san "topo $spec" 0 topo "$spec"
done
san "simulate synthetic" 0 simulate --topo dragonfly:a=4,p=2,h=2,g=9 \
    --traffic hotspot:target=5,frac=0.3 --load 0.5 --duration 5us -o "$T/syn" --quiet
san "simulate replay" 0 simulate --topo torus:4x4x2 -i "$T/halo" --map random \
    --background alltoall:frac=0.5 -o "$T/rep" --quiet
printf 'tag 0-99 halo\ncollective allreduce sums\n' >"$T/phases"
san "analyze" 0 analyze "$T/rep" --phases "$T/phases" -q
san "analyze synthetic" 0 analyze "$T/syn" -q
san "render" 0 render "$T/rep" -q
san "render synthetic" 0 render "$T/syn" -q
san "whatif" 0 whatif "$T/rep" --no-background -q

# the whole pipeline through the sanitized command, on a real MPICH job
APP="$BUILD/examples/mpich/halo3d"
if [ -x "$APP" ]; then
    # the interposer is found beside the executable; this one is in san/bin
    export HOPSCOPE_LIB="$BUILD/lib/mpich/libhopscope.so"
    san "run (record, simulate, analyze, render)" 0 run -o "$T/run" --nodes 2 \
        --topo fattree:k=4,n=2 -- $MPIRUN_MPICH -np 4 "$APP" -n 8 -i 2 -q
    t_check "sanitized run wrote report.html" test -s "$T/run/run/report.html"
else
    t_fail "MPICH example built" "$APP missing"
fi

# run refuses bad options before launching (nothing runs, nothing written)
san "run --bits 2" 2 run -o "$T/r" --bits 2 -- true
san "run --topo fattree:k=0" 2 run -o "$T/r" --topo fattree:k=0 -- true
t_check "run wrote nothing" test ! -e "$T/r"

# refused inputs: every reader fails cleanly
printf 'collective alltoal x\n' >"$T/badph"
san "bad phases file" 1 analyze "$T/rep" --phases "$T/badph" -q
printf 'hopscope-topology 1\nswitch s0 s1\nnode c d\nlink c s0\nlink d s1\nlink s0 s1\nroute s0 c s0\n' >"$T/bad.topo"
san "bad topology file" 2 topo "file:$T/bad.topo"
printf '0 3\n1 3\n' >"$T/bad.map"
san "bad mapping file" 2 simulate --topo torus:4x4 -i "$T/halo" --map "file:$T/bad.map" --quiet
cp -r "$T/halo" "$T/dmg"
f="$T/dmg/rank-000003.hst"
sz=$(wc -c <"$f")
printf '\377\377\377\377' | dd of="$f" bs=1 seek=$((sz / 2)) conv=notrunc 2>/dev/null
san "damaged trace: check" 1 trace check "$T/dmg"
san "damaged trace: simulate" 1 simulate --topo torus:4x4 -i "$T/dmg" --quiet
mkdir -p "$T/badan"
sed 's/"max_cf_se":[0-9.e-]*/"max_cf_se":-5/' "$T/rep/analysis.json" >"$T/badan/analysis.json"
san "bad analysis.json" 1 render "$T/badan" -q
printf 'not a table\n' >"$T/rep/links.tsv"
san "damaged run directory" 1 analyze "$T/rep" -q
# sweep: the children are this sanitized binary too; a report in one makes
# it fail, and the sweep with it
san "sweep" 0 sweep -i "$T/halo" --topo fattree:k=4,n=2 --ppn 2 --map linear,blocked:1,suggested \
    --random 1 --background none --background alltoall:frac=0.5 -j2 -q -o "$T/sw"
if [ -f "$T/sw/failed.csv" ]; then t_fail "asan: sweep: every run has a row" "$(cat "$T/sw/failed.csv")"; else t_ok "asan: sweep: every run has a row"; fi
grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$T"/sw/logs/* &&
    t_fail "asan: sweep children" "$(grep -lE 'Sanitizer|runtime error' "$T"/sw/logs/*)"
san "sweep part 1/2" 0 sweep -i "$T/halo" --topo fattree:k=4,n=2 --ppn 2 --map linear,blocked:1,suggested \
    --random 1 --background none --background alltoall:frac=0.5 --part 1/2 -q -o "$T/sw1"
san "sweep merge, a part missing" 1 sweep merge -o "$T/m.csv" "$T/sw1"
san "sweep merge" 0 sweep merge -o "$T/m.csv" "$T/sw1" "$T/sw"
san "sweep: bad blocked" 2 sweep -i "$T/halo" --topo fattree:k=4,n=2 --map blocked:3 -o "$T/sw2"
exit $t_failed
