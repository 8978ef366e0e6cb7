#!/bin/sh
# Families of runs over MPI (issue 15; docs/fabric.md, "Families of runs"):
# `mpirun -np N hopscope-par sweep|whatif` under Open MPI and MPICH with 1,
# 2 and 3 processes writes what `hopscope sweep|whatif` writes, byte for
# byte (sweep.csv, kept run directories, generated mappings; whatif's
# comparison and run directories); the runs are spread over the processes;
# a run that fails on process 1 fails the command with its error and no
# sweep.csv, and so does killing process 1; a sweep directory a process
# cannot see is named; what
# hopscope-par refuses and what its help lists.
. tests/integration/lib.sh
H=$HOPSCOPE
cd "$T_TMP" || exit 1
H=$(cd "$OLDPWD" && cd "$(dirname "$H")" && pwd)/$(basename "$H")
B=$(dirname "$(dirname "$H")")

# the files of a directory tree and their contents, as one hash
hash_tree() { (cd "$1" 2>/dev/null && find . -type f | LC_ALL=C sort | xargs md5sum | md5sum | cut -c1-32); }

"$H" gen halo3d --ranks 16 --iters 2 --size 8K -o t.trace >/dev/null 2>&1
# 8 runs: 4 mappings (one the analyzer's suggestion) x 2 backgrounds
A="-i t.trace --topo fattree:k=4,n=2 --ppn 2 --map linear,roundrobin,suggested --random 1 --background none --background alltoall:frac=0.5 --keep-runs"
# shellcheck disable=SC2086
timeout 300 "$H" sweep $A -q -o S > /dev/null 2>&1
t_eq "sequential sweep: 8 rows" 9 "$(wc -l < S/sweep.csv 2>/dev/null)"
want_sweep="$(hash_tree S)"
mv S S.seq

# a run with a background, for whatif (4 scenarios: suggested, linear,
# no background, suggested without background)
"$H" simulate --topo fattree:k=4,n=2 -i t.trace --ppn 2 --map random:3 \
    --background alltoall:frac=0.5 --quiet -o run > /dev/null 2>&1
"$H" analyze -q run > /dev/null 2>&1
W="run --map suggested --no-background"
# shellcheck disable=SC2086
"$H" whatif $W > w.seq 2> /dev/null
t_eq "sequential whatif: 5 scenarios" 5 "$(grep -cE '^(current|suggested|linear) mapping' w.seq)"
want_whatif="$(hash_tree run.whatif)"
mv run.whatif run.whatif.seq

for mpi in openmpi mpich; do
    P="$B/bin/$mpi/hopscope-par"
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    if [ ! -x "$P" ]; then
        t_fail "hopscope-par built for $mpi" "missing $P"
        continue
    fi
    got="" spread="" gotw="" others=""
    for np in 1 2 3; do
        rm -rf S run.whatif
        # shellcheck disable=SC2086
        timeout 300 $RUN -np $np "$P" sweep $A -o S > s.out 2> s.err < /dev/null
        rc=$?
        [ $rc -eq 0 ] && [ "$(hash_tree S)" = "$want_sweep" ] && got="$got $np:same" || got="$got $np:differs(rc=$rc)"
        # "runs by process: 0:3 1:5": one count per process, 8 in all
        by=$(sed -n 's/^hopscope sweep: runs by process://p' s.err)
        spread="$spread $np:$(echo "$by" | wc -w),$(echo "$by" | tr ' ' '\n' | cut -d: -f2 | awk '{s += $1} END {print s + 0}')"
        # the others asked for runs while rank 0 ran its own
        [ $np -gt 1 ] && others="$others $np:$(echo "$by" | tr ' ' '\n' | grep -v '^0:' | cut -d: -f2 | awk '{s += $1} END {print (s > 0) ? "some" : "none"}')"
        # shellcheck disable=SC2086
        timeout 300 $RUN -np $np "$P" whatif $W > w.out 2> w.err < /dev/null
        rc=$?
        [ $rc -eq 0 ] && cmp -s w.out w.seq && [ "$(hash_tree run.whatif)" = "$want_whatif" ] && gotw="$gotw $np:same" || gotw="$gotw $np:differs(rc=$rc)"
    done
    t_eq "$mpi: sweep with 1 2 3 processes: sweep.csv, runs/, maps/ identical to hopscope's" \
        " 1:same 2:same 3:same" "$got"
    t_eq "$mpi: the queue gave each process its count, 8 runs in all" " 1:1,8 2:2,8 3:3,8" "$spread"
    t_eq "$mpi: processes other than rank 0 ran some of them" " 2:some 3:some" "$others"
    t_eq "$mpi: whatif with 1 2 3 processes: comparison and run directories identical" \
        " 1:same 2:same 3:same" "$gotw"

    # the runs of process 1 cannot start (its runs' address space is too
    # small to load the program): the command fails naming process 1, and
    # writes no sweep.csv
    rm -rf F
    F="-i t.trace --topo fattree:k=4,n=2 --ppn 2 --map linear,roundrobin --random 6 -q -o F"
    # shellcheck disable=SC2086
    timeout 300 $RUN -np 1 "$P" sweep $F : -np 1 "$P" sweep $F --max-mem 16M > f.out 2> f.err < /dev/null
    rc=$?
    t_eq "$mpi: a run failing on process 1 fails the sweep" 1 "$rc"
    t_grep "$mpi: ... with process 1's error" \
        "^hopscope sweep: failed on process 1 of 2 \([^)]*\): run [0-9]+ stopped with status 127 \(see F/logs/" f.err
    t_eq "$mpi: ... and no sweep.csv" "" "$(ls F/sweep.csv* 2>/dev/null)"

    # whatif: process 1 reads the trace from a path that is not there
    rm -rf run.whatif
    # shellcheck disable=SC2086
    timeout 300 $RUN -np 1 "$P" whatif $W -q : -np 1 "$P" whatif $W -q --trace "$T_TMP/none.trace" \
        > wf.out 2> wf.err < /dev/null
    rc=$?
    t_eq "$mpi: a scenario failing on process 1 fails whatif, no comparison printed" "1 0" \
        "$rc $(wc -c < wf.out)"
    t_grep "$mpi: ... naming process 1 and its scenario" \
        "^hopscope whatif: failed on process 1 of 2 \([^)]*\): linear mapping: .*none.trace" wf.err
    t_eq "$mpi: ... and its scenario directory is not there" "" "$(ls -d run.whatif/linear* 2>/dev/null)"
done

# The process of rank 1 of a job under launcher PID (hopscope-par without
# --child: not one of its runs), by its environment.
rank1_of() {
    kids=$1
    while [ -n "$kids" ]; do
        next=""
        for k in $kids; do
            for c in $(cat /proc/"$k"/task/*/children 2>/dev/null); do
                next="$next $c"
                [ "$(cat /proc/"$c"/comm 2>/dev/null)" = hopscope-par ] || continue
                tr '\0' '\n' < /proc/"$c"/cmdline 2>/dev/null | grep -q '^--child$' && continue
                tr '\0' '\n' < /proc/"$c"/environ 2>/dev/null |
                    grep -qE '^(OMPI_COMM_WORLD_RANK|PMI_RANK)=1$' && { echo "$c"; return; }
            done
        done
        kids=$next
    done
}

# Kill process 1 of a sweep once a run has finished: the sweep fails, and
# neither sweep.csv nor a temporary of it is left; the rows done stay.
"$H" gen halo3d --ranks 64 --iters 10 --size 16K -o k.trace >/dev/null 2>&1
for mpi in openmpi mpich; do
    P="$B/bin/$mpi/hopscope-par"
    [ -x "$P" ] || continue
    case $mpi in openmpi) RUN=$MPIRUN_OMPI ;; *) RUN=$MPIRUN_MPICH ;; esac
    rm -rf K
    timeout 300 $RUN -np 2 "$P" sweep -i k.trace --topo fattree:k=8,n=2 --ppn 2 --random 30 \
        -j 1 -q -o K > k.out 2> k.err < /dev/null &
    launcher=$!
    v=""
    for i in $(seq 1 300); do
        [ -z "$v" ] && v=$(rank1_of $launcher)
        [ -n "$v" ] && [ -n "$(ls K/rows 2>/dev/null)" ] && break
        sleep 0.1
    done
    [ -n "$v" ] && kill -9 "$v"
    wait $launcher
    rc=$?
    t_eq "$mpi: killing process 1 mid-sweep fails the sweep" "failed" \
        "$([ -n "$v" ] && [ $rc -ne 0 ] && [ $rc -ne 124 ] && echo failed || echo "rc=$rc victim=$v")"
    t_eq "$mpi: ... with no sweep.csv (nor a temporary of it), rows kept" "0 yes" \
        "$(ls K/sweep.csv* 2>/dev/null | wc -l) $([ -n "$(ls K/rows 2>/dev/null)" ] && echo yes || echo no)"
done

P="$B/bin/openmpi/hopscope-par"
if [ -x "$P" ]; then
    # a sweep directory process 1 does not see (here: another directory)
    rm -rf D D1
    G="-i t.trace --topo fattree:k=4,n=2 --ppn 2 --random 2 -q"
    # shellcheck disable=SC2086
    timeout 300 $MPIRUN_OMPI -np 1 "$P" sweep $G -o D : -np 1 "$P" sweep $G -o D1 > d.out 2> d.err < /dev/null
    t_eq "a sweep directory that a process cannot see fails the sweep" 1 $?
    t_grep "... saying it must be shared" \
        "failed on process 1 of 2 .*D1/plan.csv is not there: the sweep directory must be one that every process sees" d.err
    $MPIRUN_OMPI -np 2 "$P" --help > h.out 2>&1
    t_eq "hopscope-par --help exits 0" 0 $?
    t_eq "... once, listing simulate, sweep and whatif" "1 1 1 1" \
        "$(grep -c '^usage: mpirun' h.out) $(grep -c '^  simulate ' h.out) $(grep -c '^  sweep ' h.out) $(grep -c '^  whatif ' h.out)"
    $MPIRUN_OMPI -np 2 "$P" sweep --help > h2.out 2>&1
    t_eq "hopscope-par sweep --help: the sweep's help, once" 1 "$(grep -c '^usage: hopscope sweep' h2.out)"
    $MPIRUN_OMPI -np 2 "$P" analyze run > r.out 2>&1
    t_eq "other commands refused (usage error)" 2 $?
    t_grep "... saying what runs in parallel" "runs 'simulate', 'sweep' and 'whatif' over MPI processes" r.out
    $MPIRUN_OMPI -np 2 "$P" sweep merge -o m.csv S > r2.out 2>&1
    t_eq "sweep merge refused (one machine's job)" 2 $?
fi
exit $t_failed
