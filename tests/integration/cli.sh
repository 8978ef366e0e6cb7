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
"$HOPSCOPE" demo --codec --packets abc 2> "$T_TMP/err"; rc=$?
t_eq "bad option value exits 2" 2 "$rc"
t_grep "bad value named" "bad value 'abc' for --packets" "$T_TMP/err"

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
