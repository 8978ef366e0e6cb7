#!/bin/sh
# hopscope topo and simulate: summaries, rejection of bad input, the run
# directory, determinism, and a reduced-size congestion-tree experiment.
. tests/integration/lib.sh

# topo: sizes, diameter, bisection of known networks
"$HOPSCOPE" topo fattree:k=8,n=2 > "$T_TMP/t1"
t_grep "topo fat-tree nodes" '^nodes +64$' "$T_TMP/t1"
t_grep "topo fat-tree links" '^links +256 directed \(64 injection, 64 ejection, 128 switch-to-switch\)' "$T_TMP/t1"
t_grep "topo fat-tree diameter" '^diameter +4 links' "$T_TMP/t1"
t_grep "topo fat-tree bisection" '^bisection +800 GB/s one way, 32 links \(cut' "$T_TMP/t1"
"$HOPSCOPE" topo fattree:k=8,n=2,taper=2 > "$T_TMP/t2"
t_grep "topo taper halves the bisection" '^per node +0.5 of injection' "$T_TMP/t2"
"$HOPSCOPE" topo dragonfly:a=4,p=2,h=2,g=9,routing=ugal > "$T_TMP/t3"
t_grep "topo dragonfly" '^routing +ugal \(adaptive, 3 VCs\)' "$T_TMP/t3"
"$HOPSCOPE" topo torus:4x4x4 > "$T_TMP/t4"
t_grep "topo torus diameter" '^diameter +8 links' "$T_TMP/t4"
"$HOPSCOPE" topo fattree:k=4,n=2 --links > "$T_TMP/t5"
t_eq "topo --links rows" 65 "$(wc -l < "$T_TMP/t5")"
"$HOPSCOPE" topo fattree:k=4,n=2 --path 0:15 > "$T_TMP/t6"
t_eq "topo --path hops" 4 "$(wc -l < "$T_TMP/t6")"
cat > "$T_TMP/ring.topo" <<'T'
hopscope-topology 1
switch s0 s1 s2
node a b c
link a s0
link b s1
link c s2
link s0 s1
link s1 s2
link s2 s0
T
"$HOPSCOPE" topo "file:$T_TMP/ring.topo" > "$T_TMP/t7"
t_grep "topo file" '^nodes +3$' "$T_TMP/t7"
for bad in "fattree:k=4,nope=1" "dragonfly:g=99" "torus:4xx4" "blah" "file:$T_TMP/none"; do
    "$HOPSCOPE" topo "$bad" > /dev/null 2> "$T_TMP/err"; rc=$?
    if [ "$rc" -ne 0 ] && [ -s "$T_TMP/err" ]; then t_ok "topo rejects $bad"; else
        t_fail "topo rejects $bad" "exit $rc" "$(cat "$T_TMP/err")"; fi
done
"$HOPSCOPE" topo fattree:k=4,nope=1 2> "$T_TMP/err"
t_grep "topo names the bad option" "unknown option 'nope'" "$T_TMP/err"
"$HOPSCOPE" topo > /dev/null 2>&1; t_eq "topo without spec exits 2" 2 $?
"$HOPSCOPE" help topo > "$T_TMP/h"; t_grep "topo help" '^usage: hopscope topo' "$T_TMP/h"

# simulate: results, usage errors
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --load 0.3 --duration 10us -o "$T_TMP/run" > "$T_TMP/s1"
t_eq "simulate exits 0" 0 $?
t_grep "simulate reports accepted load" '^accepted +0\.[0-9]+' "$T_TMP/s1"
t_grep "simulate reports latency" '^latency +mean .* p99 ' "$T_TMP/s1"
for f in manifest.json links.tsv nodes.tsv switches.tsv phases.tsv counters.bin records.bin truth.bin; do
    [ -s "$T_TMP/run/$f" ] && t_ok "run dir has $f" || t_fail "run dir has $f"
done
t_grep "manifest traffic" '"pattern": "uniform"' "$T_TMP/run/manifest.json"
# a fat-tree's routes are recomputed from its spec; --route-tables dumps
# them, and both directories analyse to the same analysis.json
t_check "no routes.bin for a fat-tree" test ! -e "$T_TMP/run/routes.bin"
t_grep "manifest: routes computed" '"routes": "computed"' "$T_TMP/run/manifest.json"
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --load 0.3 --duration 10us --route-tables -o "$T_TMP/runt" > /dev/null
t_check "--route-tables writes routes.bin" test -s "$T_TMP/runt/routes.bin"
t_grep "manifest: routes table" '"routes": "table"' "$T_TMP/runt/manifest.json"
cp -r "$T_TMP/run" "$T_TMP/runc"
"$HOPSCOPE" analyze "$T_TMP/runc" -q > /dev/null 2>&1
"$HOPSCOPE" analyze "$T_TMP/runt" -q > /dev/null 2>&1
sed "s#$T_TMP/runt#RUN#g" "$T_TMP/runt/analysis.json" > "$T_TMP/at.json"
sed "s#$T_TMP/runc#RUN#g" "$T_TMP/runc/analysis.json" > "$T_TMP/ac.json"
t_check "analysis.json the same with tables and with recomputed routes" cmp -s "$T_TMP/at.json" "$T_TMP/ac.json"
# progress on stderr: after HOPSCOPE_PROGRESS_AFTER seconds (2 by default),
# every stage; never with -q; nothing on stdout changes
HOPSCOPE_PROGRESS_AFTER=0 "$HOPSCOPE" analyze "$T_TMP/runc" > "$T_TMP/p.out" 2> "$T_TMP/p.err"
t_grep "analyze progress: first stage" '^hopscope analyze: [0-9.]* s: reading the run directory$' "$T_TMP/p.err"
t_grep "analyze progress: records counted" '^hopscope analyze: [0-9.]* s: decoding records by phase: 0 of [1-9][0-9]* \(0%\)$' "$T_TMP/p.err"
t_grep "analyze progress: last line" '^hopscope analyze: done in [0-9.]* s$' "$T_TMP/p.err"
HOPSCOPE_PROGRESS_AFTER=1000 "$HOPSCOPE" analyze "$T_TMP/runc" > "$T_TMP/p2.out" 2> "$T_TMP/p2.err"
t_eq "analyze: no progress on a short run" "" "$(cat "$T_TMP/p2.err")"
t_check "analyze: progress leaves stdout alone" cmp -s "$T_TMP/p.out" "$T_TMP/p2.out"
HOPSCOPE_PROGRESS_AFTER=0 "$HOPSCOPE" analyze "$T_TMP/runc" -q 2> "$T_TMP/p3.err"
t_eq "analyze -q: no progress" "" "$(cat "$T_TMP/p3.err")"
HOPSCOPE_PROGRESS_AFTER=0 "$HOPSCOPE" render "$T_TMP/runc" > /dev/null 2> "$T_TMP/p4.err"
t_grep "render progress" '^hopscope render: [0-9.]* s: drawing$' "$T_TMP/p4.err"
HOPSCOPE_PROGRESS_AFTER=0 "$HOPSCOPE" render "$T_TMP/runc" -q 2> "$T_TMP/p5.err"
t_eq "render -q: no progress" "" "$(cat "$T_TMP/p5.err")"
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --load 0.3 --duration 10us -o "$T_TMP/run2" > /dev/null
same=1
for f in manifest.json links.tsv counters.bin records.bin truth.bin; do
    cmp -s "$T_TMP/run/$f" "$T_TMP/run2/$f" || same=0
done
t_eq "same seed, byte-identical run directories" 1 "$same"
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --load 0.3 --duration 10us --seed 2 -o "$T_TMP/run3" > /dev/null
cmp -s "$T_TMP/run/records.bin" "$T_TMP/run3/records.bin"; t_eq "another seed, other records" 1 $?
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --load 2 > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "simulate bad load exits 2" 2 "$rc"
t_grep "simulate names the option" 'load 2: expected' "$T_TMP/err"
"$HOPSCOPE" simulate --load 0.5 > /dev/null 2>&1; t_eq "simulate without --topo exits 2" 2 $?
"$HOPSCOPE" simulate --topo mesh:2x3 --traffic transpose > /dev/null 2> "$T_TMP/err"; rc=$?
t_eq "pattern that does not fit exits 2" 2 "$rc"
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --traffic groupshift > /dev/null 2> "$T_TMP/err"
t_grep "groupshift needs a dragonfly" 'needs a dragonfly' "$T_TMP/err"
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --frob > /dev/null 2>&1; t_eq "unknown option exits 2" 2 $?
"$HOPSCOPE" simulate --topo fattree:k=4,n=2 --packets 2000 --load 0.5 --tsv > "$T_TMP/tsv"
t_eq "tsv: header and one line" 2 "$(wc -l < "$T_TMP/tsv")"
t_eq "tsv: all delivered" "0 ok" "$(tail -1 "$T_TMP/tsv" | awk -F'\t' '{print $13, $14}')"

# Dragonfly, adversarial group shift: minimal routing saturates at one
# global link per group (a*p = 8 nodes share it: 1/8 of injection), UGAL
# spreads over Valiant paths and accepts clearly more.
for r in min ugal; do
    "$HOPSCOPE" simulate --topo dragonfly:a=4,p=2,h=2,g=9,routing=$r --traffic groupshift \
        --load 0.5 --duration 20us --tsv | tail -1 | cut -f3 > "$T_TMP/df_$r"
done
min=$(cat "$T_TMP/df_min"); ugal=$(cat "$T_TMP/df_ugal")
awk -v m="$min" 'BEGIN { exit !(m > 0.11 && m < 0.135) }' && t_ok "dragonfly minimal saturates at 1/8 ($min)" \
    || t_fail "dragonfly minimal saturates at 1/8" "accepted $min"
awk -v m="$min" -v u="$ugal" 'BEGIN { exit !(u > 2.5 * m) }' && t_ok "UGAL-L beats minimal ($ugal vs $min)" \
    || t_fail "UGAL-L beats minimal" "ugal $ugal min $min"
# UGAL at low load routes minimally: with the default bias (4 full packets)
# its mean latency at load 0.1 is the minimal routing's, within 1%; with no
# bias (--ugal-threshold 0) one packet in flight on the minimal first hop
# sends the next one the long way and latency rises by several percent.
# UGAL-G (global knowledge) too; and it beats minimal on the adversarial
# group shift as UGAL-L does.
DF=dragonfly:a=4,p=2,h=2,g=9
lmin=$("$HOPSCOPE" simulate --topo $DF,routing=min --load 0.1 --duration 20us --tsv | tail -1 | cut -f4)
lug=$("$HOPSCOPE" simulate --topo $DF,routing=ugal --load 0.1 --duration 20us --tsv | tail -1 | cut -f4)
lug0=$("$HOPSCOPE" simulate --topo $DF,routing=ugal --load 0.1 --duration 20us --tsv --ugal-threshold 0 | tail -1 | cut -f4)
lugg=$("$HOPSCOPE" simulate --topo $DF,routing=ugal-g --load 0.1 --duration 20us --tsv | tail -1 | cut -f4)
awk -v m="$lmin" -v u="$lug" 'BEGIN { exit !(u <= 1.01 * m && u >= 0.99 * m) }' \
    && t_ok "UGAL-L at load 0.1 as minimal ($lug vs $lmin ns)" \
    || t_fail "UGAL-L at load 0.1 as minimal" "ugal $lug min $lmin"
awk -v m="$lmin" -v u="$lugg" 'BEGIN { exit !(u <= 1.01 * m && u >= 0.99 * m) }' \
    && t_ok "UGAL-G at load 0.1 as minimal ($lugg vs $lmin ns)" \
    || t_fail "UGAL-G at load 0.1 as minimal" "ugal-g $lugg min $lmin"
awk -v m="$lmin" -v u="$lug0" 'BEGIN { exit !(u > 1.05 * m) }' \
    && t_ok "UGAL-L without bias leaves minimal at load 0.1 ($lug0 vs $lmin ns)" \
    || t_fail "UGAL-L without bias leaves minimal at load 0.1" "ugal T=0 $lug0 min $lmin"
"$HOPSCOPE" simulate --topo $DF,routing=ugal --load 0.1 --duration 20us > "$T_TMP/ug.out"
t_grep "simulate reports UGAL's Valiant share" '^routing +ugal: [0-9]+ of [0-9]+ packets \([0-9.]+%\) sent the Valiant way' "$T_TMP/ug.out"
ugg=$("$HOPSCOPE" simulate --topo $DF,routing=ugal-g --traffic groupshift --load 0.5 --duration 20us --tsv | tail -1 | cut -f3)
awk -v m="$min" -v u="$ugg" 'BEGIN { exit !(u > 2.5 * m) }' && t_ok "UGAL-G beats minimal ($ugg vs $min)" \
    || t_fail "UGAL-G beats minimal" "ugal-g $ugg min $min"

# More VCs remove head-of-line blocking: an incast tree on a fat-tree
# blocks the background traffic sharing its buffers; with vcs=4 (VC by
# destination) the victims pass the blocked heads on other VCs.
for v in 1 4; do
    "$HOPSCOPE" simulate --topo fattree:k=4,n=3,vcs=$v --traffic incast:target=3,senders=12,bg=0.3 \
        --duration 20us > "$T_TMP/hol$v"
    sed -n 's/^background .* accepted \([0-9.]*\),.*/\1/p' "$T_TMP/hol$v" > "$T_TMP/holacc$v"
done
a1=$(cat "$T_TMP/holacc1"); a4=$(cat "$T_TMP/holacc4")
awk -v a="$a1" -v b="$a4" 'BEGIN { exit !(a > 0 && b > 1.3 * a) }' \
    && t_ok "vcs=4 on a fat-tree frees the incast's victims ($a4 vs $a1 accepted)" \
    || t_fail "vcs=4 frees the incast's victims" "vcs=4 $a4 vcs=1 $a1"
"$HOPSCOPE" topo fattree:k=4,n=2,vcs=4,vcsel=rr > "$T_TMP/tv"
t_grep "topo fat-tree with 4 VCs" '^routing +dmodk \(deterministic, 4 VCs\)' "$T_TMP/tv"
"$HOPSCOPE" topo torus:4x4,vcs=3 > "$T_TMP/tv3" 2>&1
t_grep "vcs not a multiple of the classes is refused" 'vcs=3: the routing needs 2 VC classes' "$T_TMP/tv3"

# router=booksim: the canonical spec names its parameters, a run directory
# from it analyzes, and an output's one VC serves two inputs every other
# cycle (allocated again one cycle after the previous tail left): two
# saturating senders share half the ejection link
"$HOPSCOPE" simulate --topo torus:4x4,vcs=2,router=booksim --load 0.2 --duration 3us \
    -o "$T_TMP/bsrun" > "$T_TMP/bs1" 2>&1
t_grep "booksim: spec" '^network +torus:4x4,.*,router=booksim,flit=64,vc_buf_size=8,routing_delay=1' "$T_TMP/bs1"
t_grep "booksim: all delivered" '^measured +[0-9]+ messages, all delivered' "$T_TMP/bs1"
t_check "booksim: run directory analyzes" "$HOPSCOPE" analyze "$T_TMP/bsrun"
"$HOPSCOPE" simulate --topo fattree:k=4,n=1,lat=2.56ns,nlat=2.56ns,router=booksim \
    --traffic incast:target=0,list=1+2 --mtu 64 --size 64 --load 1.0 --duration 5us \
    --drain 1ns > "$T_TMP/bs2" 2>&1
t_grep "booksim: one VC, two inputs: 0.25 each" '^accepted +0\.2(49[5-9]|50[0-5])' "$T_TMP/bs2"

exit $t_failed
