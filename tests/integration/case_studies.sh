#!/bin/sh
# The case studies of docs/case-studies.md, at reduced size: each script
# checks the diagnosis it documents and prints "ok"/"not ok" lines.
. tests/integration/lib.sh
export HOPSCOPE
for cs in halo pf3d incast; do
    sh "examples/case-studies/$cs.sh" --small --out "$T_TMP/$cs" > "$T_TMP/$cs.out" 2>&1
    rc=$?
    grep -E '^(not )?ok - ' "$T_TMP/$cs.out"
    if [ $rc -ne 0 ] && ! grep -q '^not ok - ' "$T_TMP/$cs.out"; then
        t_fail "case study $cs ran" "$(tail -5 "$T_TMP/$cs.out")"
    fi
    [ $rc -eq 0 ] || t_failed=1
done
exit $t_failed
