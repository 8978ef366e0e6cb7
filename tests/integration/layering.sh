# The modules depend one way only (README, "Architecture"):
#   common <- hash <- libtrace <- fabric <- replay <- analyzer <- viz <- cli
# A module may include the public header (include/hopscope/X.h) of itself
# and of modules to its left, its own private headers, and common/'s private
# headers; never another module's private headers.  Checked twice: on the
# #include lines of the sources, and on the built objects (no symbol a module
# uses is defined by a module to its right).
. tests/integration/lib.sh

ORDER="common hash libtrace fabric replay analyzer viz cli"
pub() { # module -> its public header (none for cli)
    case $1 in libtrace) echo trace.h ;; cli) echo "" ;; *) echo "$1.h" ;; esac
}

# include_violations ROOT: prints "file: #include ..." for every include a
# module may not have, over ROOT/<module>/**/*.[ch].
include_violations() {
    root=$1
    allowed=""
    for m in $ORDER; do
        p=$(pub "$m")
        [ -n "$p" ] && allowed="$allowed $p"
        [ -d "$root/$m" ] || continue
        find "$root/$m" -name '*.[ch]' | sort | while read -r f; do
            grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" |
            while IFS= read -r line; do
                inc=$(echo "$line" | sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]*)".*/\1/')
                ok=0
                case $inc in
                    hopscope/*)
                        for a in $allowed; do [ "$inc" = "hopscope/$a" ] && ok=1; done ;;
                    ../common/*) ok=1 ;;
                    ../*/*) ok=0 ;;                 # another module's private header
                    */*) ok=0 ;;
                    *) ok=1 ;;                     # same directory
                esac
                # libtrace/interpose/ may use libtrace's own private headers.
                case "$f:$inc" in "$root"/libtrace/*/*:../*.h) ok=1 ;; esac
                [ $ok -eq 1 ] || echo "${f#"$root"/}: #include \"$inc\""
            done
        done
    done
}

v=$(include_violations .)
t_eq "every #include follows the module order" "" "$v"

# The checker finds what it must: a fabric file that includes the replay's
# header or reaches into replay/, and a replay file using fabric's engine.h.
mkdir -p "$T_TMP/src/fabric" "$T_TMP/src/replay"
printf '#include "engine.h"\n#include "hopscope/fabric.h"\n#include "hopscope/replay.h"\n' >"$T_TMP/src/fabric/a.c"
printf '#include "../replay/replay.h"\n#include "../common/rng.h"\n' >"$T_TMP/src/fabric/b.h"
printf '#include "hopscope/fabric.h"\n#include "../fabric/engine.h"\n#include "replay.h"\n' >"$T_TMP/src/replay/c.c"
v=$(include_violations "$T_TMP/src")
t_eq "the include check reports planted violations" \
"fabric/a.c: #include \"hopscope/replay.h\"
fabric/b.h: #include \"../replay/replay.h\"
replay/c.c: #include \"../fabric/engine.h\"" "$v"

# objs MODULE: its built objects whose source still exists (a renamed
# file's stale object may linger in the build directory).
objs() {
    for o in "$BUILD/obj/$1"/*.o; do
        [ -f "$1/$(basename "$o" .o).c" ] && echo "$o"
    done
}
# Symbols: what each module's objects need, none defined further right.
if [ -d "$BUILD/obj/fabric" ] && command -v nm >/dev/null; then
    v=""
    later="$ORDER"
    for m in $ORDER; do
        later=${later#"$m"}; later=${later# }
        [ -n "$later" ] || break
        o=$(objs "$m"); [ -n "$o" ] || continue
        nm -u $o 2>/dev/null | awk 'NF == 2 {print $2}' | sort -u >"$T_TMP/need"
        : >"$T_TMP/def"
        for l in $later; do
            o=$(objs "$l"); [ -n "$o" ] || continue
            nm --defined-only $o 2>/dev/null |
                awk 'NF == 3 && $2 ~ /[TDRB]/ {print $3}' >>"$T_TMP/def"
        done
        sort -u "$T_TMP/def" -o "$T_TMP/def"
        bad=$(comm -12 "$T_TMP/need" "$T_TMP/def" | tr '\n' ' ')
        [ -n "$bad" ] && v="$v $m needs: $bad;"
    done
    t_eq "no module's objects use symbols of a module to its right" "" "$v"
    # and that check sees real references: replay's objects do use fabric's.
    nm -u $(objs replay) | grep -q ' hs_fabric_inject_payload$' &&
        t_ok "replay's objects reference fabric (hs_fabric_inject_payload)" ||
        t_fail "replay's objects reference fabric (hs_fabric_inject_payload)"
else
    t_fail "object files under $BUILD/obj to check symbols"
fi
exit $t_failed
