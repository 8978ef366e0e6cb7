#!/bin/sh
# The hopscope command: help, version, dispatch, usage errors, demo, install.
. tests/integration/lib.sh

out=$("$HOPSCOPE" --version); t_eq "version" "hopscope 0.1.0" "$out"
"$HOPSCOPE" help > "$T_TMP/help"; t_grep "help lists demo" '^  demo ' "$T_TMP/help"
"$HOPSCOPE" nosuchcmd 2> "$T_TMP/err"; rc=$?
t_eq "unknown command exits 2" 2 "$rc"
t_grep "unknown command named" "unknown command 'nosuchcmd'" "$T_TMP/err"
"$HOPSCOPE" dem 2> "$T_TMP/err"
t_grep "suggests near command" "did you mean 'demo'" "$T_TMP/err"
"$HOPSCOPE" demo --help > "$T_TMP/dh"; t_grep "demo --help" '^usage: hopscope demo' "$T_TMP/dh"
"$HOPSCOPE" help demo > "$T_TMP/dh2"; t_check "help demo equals demo --help" cmp "$T_TMP/dh" "$T_TMP/dh2"
# Actions have help texts of their own: usage, options, an example; the
# command's help lists them.  'help CMD ACTION' prints the same.
for a in "trace stats" "trace dump" "trace check" "trace import smpi" "trace import otf2" \
         "trace export otf2" "latmodel collect" "latmodel counters" "latmodel import" \
         "latmodel fit" "latmodel predict" "latmodel eval" "latmodel report" "sweep merge"; do
    # shellcheck disable=SC2086
    "$HOPSCOPE" $a --help > "$T_TMP/ah"; rc=$?
    # shellcheck disable=SC2086
    "$HOPSCOPE" help $a > "$T_TMP/ah2"
    if [ $rc -eq 0 ] && head -1 "$T_TMP/ah" | grep -q "^usage: hopscope $a " &&
       grep -q '^examples\{0,1\}:$' "$T_TMP/ah" && cmp -s "$T_TMP/ah" "$T_TMP/ah2" &&
       [ "$(grep -c '^usage: ' "$T_TMP/ah")" = 1 ]; then
        t_ok "$a --help: its own usage and an example, same as help $a"
    else
        t_fail "$a --help: its own usage and an example, same as help $a" "$(head -3 "$T_TMP/ah")"
    fi
done
"$HOPSCOPE" trace stats --json --help > "$T_TMP/ah"
t_grep "trace stats --json --help: the action's help" '^usage: hopscope trace stats ' "$T_TMP/ah"
t_eq "trace stats --help: not dump's options" 0 "$(grep -c -- '--kind NAME' "$T_TMP/ah")"
"$HOPSCOPE" trace --help > "$T_TMP/th"
t_grep "trace --help lists its actions" '^  import smpi  ' "$T_TMP/th"
t_grep "trace --help says where an action's options are" "hopscope trace ACTION --help" "$T_TMP/th"
"$HOPSCOPE" trace import --help > "$T_TMP/ah"
t_check "trace import --help (no format): the command's help" cmp "$T_TMP/th" "$T_TMP/ah"
"$HOPSCOPE" --help > "$T_TMP/help2"
t_grep "--help lists the commands" '^  simulate ' "$T_TMP/help2"
"$HOPSCOPE" demo --codec --packets abc 2> "$T_TMP/err"; rc=$?
t_eq "bad option value exits 2" 2 "$rc"
t_grep "bad value named" "bad value 'abc' for --packets" "$T_TMP/err"

# run checks the options of every step before the application runs: a bad
# value exits 2 naming it, and neither runs the launcher nor writes anything.
printf 'tag 1 a\ncollective alltoal x\n' > "$T_TMP/phases"
bad_run() { # NAME PATTERN OPTIONS...
    n=$1; pat=$2; shift 2
    rm -rf "$T_TMP/r" "$T_TMP/ran"
    "$HOPSCOPE" run -o "$T_TMP/r" "$@" -- sh -c "touch '$T_TMP/ran'" 2> "$T_TMP/err"; rc=$?
    t_eq "run $n exits 2" 2 "$rc"
    t_grep "run $n names the problem" "$pat" "$T_TMP/err"
    t_check "run $n launches nothing" test ! -e "$T_TMP/ran"
    t_check "run $n writes nothing" test ! -e "$T_TMP/r"
}
bad_run "--bits 2" "--bits 2: expected the width of the in-band field, 5..13" --bits 2
bad_run "--topo fattree:k=0" "topology 'fattree': k=0" --topo fattree:k=0
bad_run "--map file:missing" "mapping file '$T_TMP/nomap'" --map "file:$T_TMP/nomap"
bad_run "--map bogus" "mapping 'bogus'" --map bogus
bad_run "--background foo" "unknown background 'foo'" --background foo
bad_run "--background trace:missing" "$T_TMP/notrace" --background "trace:$T_TMP/notrace"
bad_run "--ppn 0" "--ppn 0" --ppn 0
bad_run "--seed x" "--seed x" --seed x
bad_run "--compute-scale -1" "--compute-scale -1" --compute-scale -1
bad_run "--phases (unknown collective)" "phases: line 2: expected a collective kind" \
    --phases "$T_TMP/phases"
bad_run "--phases missing" "cannot open phases file" --phases "$T_TMP/nophases"
bad_run "--mpi foo" "must be openmpi or mpich, not 'foo'" --mpi foo
# one meaning and one text for --bits in run and simulate
"$HOPSCOPE" run --help | grep -A2 -- '--bits B  ' > "$T_TMP/bits_run"
"$HOPSCOPE" help simulate | grep -A2 -- '--bits B  ' > "$T_TMP/bits_sim"
t_check "run and simulate describe --bits alike" cmp "$T_TMP/bits_run" "$T_TMP/bits_sim"
t_grep "--bits is the field width" 'width of the in-band field' "$T_TMP/bits_run"

# The demo is deterministic and its decoders agree.
"$HOPSCOPE" demo --codec --packets 20000 --seed 3 | grep -v '^decode:' > "$T_TMP/d1"
"$HOPSCOPE" demo --codec --packets 20000 --seed 3 | grep -v '^decode:' > "$T_TMP/d2"
t_check "demo deterministic (timings aside)" cmp "$T_TMP/d1" "$T_TMP/d2"
"$HOPSCOPE" demo --codec --packets 20000 > "$T_TMP/d3"
t_grep "demo decoders identical" 'results identical' "$T_TMP/d3"

# make install puts the command, library, headers and a working pkg-config file.
make -s install PREFIX="$T_TMP/inst" >/dev/null 2>&1
t_check "installed hopscope runs" "$T_TMP/inst/bin/hopscope" --version
cat > "$T_TMP/use.c" <<'C'
#include <hopscope/hash.h>
#include <stdio.h>
int main(void) { hs_gf gf; hs_gf_init(&gf, 8); printf("%u\n", hs_gf_mul(&gf, 0x53, 0xca)); return 0; }
C
if gcc "$T_TMP/use.c" -o "$T_TMP/use" $(PKG_CONFIG_PATH="$T_TMP/inst/lib/pkgconfig" pkg-config --cflags --libs --static hopscope) 2>"$T_TMP/cc"; then
    # 0x53 and 0xca are inverses in GF(2^8) with the AES polynomial.
    t_eq "program built with pkg-config links and runs" 1 "$(LD_LIBRARY_PATH="$T_TMP/inst/lib" "$T_TMP/use")"
else
    t_fail "program built with pkg-config links and runs" "$(cat "$T_TMP/cc")"
fi
exit $t_failed
