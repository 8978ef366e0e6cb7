#!/bin/sh
# Bounded fuzzing of every reader of outside input (tests/fuzz/run.sh short,
# about half a minute): no input may crash, trip ASan/UBSan or hang.
. tests/integration/lib.sh
tests/fuzz/run.sh "$BUILD" short 1
