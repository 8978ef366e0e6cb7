#!/bin/sh
# Debian's prebuilt hpcc (Open MPI) runs under libhopscope.so with a small
# input, completes its tests, and its trace checks clean: every one of its
# tens of thousands of messages (probes, cancels, waitall/testany loops,
# communicators from splits) matched.
. tests/integration/lib.sh

HPCC=$(command -v hpcc)
if [ -z "$HPCC" ]; then
    t_fail "hpcc installed (make deps installs it)"
    exit 1
fi
H=$(cd "$(dirname "$HOPSCOPE")" && pwd)/$(basename "$HOPSCOPE")
cd "$T_TMP" || exit 1
# HPL N=400, NB=40 on a 2x2 grid; the other tests size themselves from N.
sed -e 's/^1000         Ns/400          Ns/' -e 's/^80           NBs/40           NBs/' \
    /usr/share/doc/hpcc/examples/_hpccinf.txt >hpccinf.txt
timeout 300 "$H" record -o "$T_TMP/hpcc.trace" -- $MPIRUN_OMPI -np 4 "$HPCC" >rec.out 2>rec.err
t_eq "hpcc exits 0 under hopscope record" 0 $?
t_grep "hpcc finished all its tests" "End of HPC Challenge tests" hpccoutf.txt
t_grep "HPL residual check passed" "N\)= .* PASSED" hpccoutf.txt
t_grep "record summary: complete" "; complete$" rec.out
"$H" trace check "$T_TMP/hpcc.trace" >check.out 2>&1
t_eq "hpcc trace checks clean" 0 $?
t_grep "check says consistent" "is consistent \(4 ranks" check.out
"$H" trace stats --json "$T_TMP/hpcc.trace" >stats.json
msgs=$(grep -m1 '"sent_messages"' stats.json | tr -dc 0-9)
if [ "${msgs:-0}" -gt 1000 ]; then t_ok "hpcc trace holds its traffic ($msgs messages)"
else t_fail "hpcc trace holds its traffic" "$msgs messages"; fi
exit $t_failed
