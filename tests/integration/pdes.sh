#!/bin/sh
# Parallel runs (issue 15; docs/fabric.md, "Parallel runs"): hopscope-par
# under Open MPI and MPICH writes run directories byte-identical to
# hopscope's with 1, 2 and 3 processes, on every topology family, with a
# congestion tree cut by the partition and with traffic that all crosses
# it; a killed process stops the run with an error and no run directory;
# what a parallel run refuses; hopscope itself links no MPI.
. tests/integration/lib.sh

hash_dir() { (cd "$1" 2>/dev/null && md5sum -- * | md5sum | cut -c1-32); }

# A ring of 6 switches in a topology file (a graph partition, not a family).
cat > "$T_TMP/ring.topo" <<'T'
hopscope-topology 1
switch s0 s1 s2 s3 s4 s5
node a b c d e f g h i j k l
link a s0
link b s0
link c s1
link d s1
link e s2
link f s2
link g s3
link h s3
link i s4
link j s4
link k s5
link l s5
link s0 s1
link s1 s2
link s2 s3
link s3 s4
link s4 s5
link s5 s0
T

# name|topology|options
CASES="fattree|fattree:k=4,n=2,routing=adaptive|--load 0.8 --packets 300 --size 6000
dragonfly|dragonfly:a=2,p=2,h=1,g=3,routing=ugal|--load 0.8 --packets 300 --traffic groupshift
torus|torus:4x4|--load 0.9 --packets 300 --monitor 0.5 --window 1us --max-windows 4
file|file:$T_TMP/ring.topo|--load 0.6 --packets 200
incast-tree|fattree:k=4,n=2|--traffic incast:target=0,senders=12 --load 0.6 --packets 300 --records-cap 150
all-cross|torus:4x4|--traffic shift --load 0.9 --packets 300"

echo "$CASES" | while IFS='|' read -r name topo opts; do
    # shellcheck disable=SC2086
    "$HOPSCOPE" simulate --topo "$topo" $opts --quiet -o "$T_TMP/seq-$name" >/dev/null 2>&1
    echo "$name $(hash_dir "$T_TMP/seq-$name")"
done > "$T_TMP/seq.hashes"
t_eq "sequential runs wrote their run directories" 6 "$(grep -c ' [0-9a-f]\{32\}$' "$T_TMP/seq.hashes")"

for mpi in openmpi mpich; do
    PAR="$BUILD/bin/$mpi/hopscope-par"
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    if [ ! -x "$PAR" ]; then
        t_fail "hopscope-par built for $mpi" "missing $PAR"
        continue
    fi
    echo "$CASES" | while IFS='|' read -r name topo opts; do
        want=$(sed -n "s/^$name //p" "$T_TMP/seq.hashes")
        got=""
        for np in 1 2 3; do
            rm -rf "$T_TMP/p"
            # shellcheck disable=SC2086
            timeout 300 $RUN -np $np "$PAR" simulate --topo "$topo" $opts --quiet \
                -o "$T_TMP/p" > "$T_TMP/p.log" 2>&1 < /dev/null
            h=$(hash_dir "$T_TMP/p")
            [ "$h" = "$want" ] && got="$got $np:same" || got="$got $np:differs"
        done
        t_eq "$mpi: $name, 1 2 3 processes, run directory identical to hopscope's" \
            " 1:same 2:same 3:same" "$got"
    done
done

# Kill one process of a long run: the run fails and leaves no run directory.
for mpi in openmpi mpich; do
    PAR="$BUILD/bin/$mpi/hopscope-par"
    [ -x "$PAR" ] || continue
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    rm -rf "$T_TMP/killed"*
    timeout 120 $RUN -np 2 "$PAR" simulate --topo fattree:k=4,n=2 --load 0.5 \
        --packets 50000000 --quiet -o "$T_TMP/killed" > "$T_TMP/k.log" 2>&1 &
    launcher=$!
    v=$(kill_one_rank $launcher)
    wait $launcher
    rc=$?
    t_eq "$mpi: a killed process stops the run with an error" "failed" \
        "$([ -n "$v" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo failed || echo "rc=$rc victim=$v")"
    t_eq "$mpi: and leaves no run directory" "" "$(ls -d "$T_TMP"/killed* 2>/dev/null)"
done

PAR="$BUILD/bin/openmpi/hopscope-par"
if [ -x "$PAR" ]; then
    $MPIRUN_OMPI -np 2 "$PAR" simulate --topo torus:4x4 --duration 1us -o "$T_TMP/d" \
        > "$T_TMP/r1" 2>&1
    t_eq "duration mode refused in parallel (usage error)" 2 $?
    t_grep "the refusal names --packets" 'needs --packets' "$T_TMP/r1"
    $MPIRUN_OMPI -np 2 "$PAR" simulate --topo dragonfly:a=2,p=2,h=1,g=3,routing=ugal-g \
        --packets 10 > "$T_TMP/r2" 2>&1
    t_eq "ugal-g refused in parallel" 2 $?
    $MPIRUN_OMPI -np 2 "$PAR" simulate --topo torus:4x4,router=booksim \
        --packets 10 -o "$T_TMP/bs" > "$T_TMP/r5" 2>&1
    t_eq "router=booksim refused in parallel (usage error)" 2 $?
    t_grep "the refusal names router=booksim" 'router=booksim' "$T_TMP/r5"
    t_eq "and leaves no run directory" "" "$(ls -d "$T_TMP"/bs* 2>/dev/null)"
    $MPIRUN_OMPI -np 2 "$PAR" topo torus:4x4 > "$T_TMP/r4" 2>&1
    t_eq "hopscope-par refuses commands other than simulate, sweep and whatif" 2 $?
    t_grep "the refusal names what runs in parallel" "runs 'simulate', 'sweep' and 'whatif'" "$T_TMP/r4"
fi
# --par-stats: the processes' counts add up to the run's (every event counted
# once, every event one part sends another receives), the critical path
# is printed by part 0, and a part gives back the pages of the other
# parts' links; the run directory is still hopscope's.
if [ -x "$PAR" ]; then
    rm -rf "$T_TMP/ps"
    timeout 300 $MPIRUN_OMPI -np 3 "$PAR" simulate --topo dragonfly:a=4,p=2,h=2,g=9,routing=ugal \
        --load 0.8 --packets 3000 --par-stats --quiet -o "$T_TMP/ps" > "$T_TMP/ps.log" 2>&1 < /dev/null
    "$HOPSCOPE" simulate --topo dragonfly:a=4,p=2,h=2,g=9,routing=ugal --load 0.8 --packets 3000 \
        --quiet -o "$T_TMP/ps-seq" > /dev/null 2>&1
    t_eq "par-stats: a line per process" 3 "$(grep -c '^par-stats part [0-2]/3: ' "$T_TMP/ps.log")"
    ev=$(sed -n 's/.*"events": \([0-9]*\).*/\1/p' "$T_TMP/ps-seq/manifest.json")
    t_eq "par-stats: the parts' events add up to the run's" "$ev" \
        "$(sed -n 's/^par-stats part .* events \([0-9]*\) ran .*/\1/p' "$T_TMP/ps.log" | awk '{ s += $1 } END { print s }')"
    t_eq "par-stats: events sent = events received, and some were" "same" \
        "$(awk '/^par-stats part/ { for (i = 1; i < NF; i++) { if ($i == "sent") s += $(i+1); if ($i == "received") r += $(i+1) } }
                END { print (s == r && s > 0) ? "same" : s " sent, " r " received" }' "$T_TMP/ps.log")"
    t_grep "par-stats: part 0 prints the critical path" '^par-stats critical path [0-9.]* s' "$T_TMP/ps.log"
    t_eq "par-stats: parts 1 and 2 gave back other parts' link state" 2 \
        "$(grep '^par-stats part [12]/3' "$T_TMP/ps.log" | grep -vc 'released 0 KB')"
    t_eq "par-stats: the run directory is still hopscope's" "$(hash_dir "$T_TMP/ps-seq")" \
        "$(hash_dir "$T_TMP/ps")"
fi
# An incast balanced by expected load: the target's switch is a part of its
# own, which posts nothing and first sees the run's phase in a packet from
# another part (phase indices are each process's own).
if [ -x "$PAR" ]; then
    o="--traffic incast:target=0 --load 0.5 --packets 2000"
    # shellcheck disable=SC2086
    "$HOPSCOPE" simulate --topo torus:8x8 $o --quiet -o "$T_TMP/inc-seq" > /dev/null 2>&1
    rm -rf "$T_TMP/inc"
    # shellcheck disable=SC2086
    timeout 300 $MPIRUN_OMPI -np 4 "$PAR" simulate --topo torus:8x8 $o --par-stats --quiet \
        -o "$T_TMP/inc" > "$T_TMP/inc.log" 2>&1 < /dev/null
    t_eq "balanced incast, 4 processes: run directory identical to hopscope's" \
        "$(hash_dir "$T_TMP/inc-seq")" "$(hash_dir "$T_TMP/inc")"
fi
t_eq "hopscope links no MPI library" 0 "$(ldd "$HOPSCOPE" | grep -c 'libmpi')"
exit $t_failed
