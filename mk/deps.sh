#!/bin/sh
# Installs the Debian packages hopscope needs when they are missing.
# As root it runs apt-get itself; otherwise it prints the exact command and
# fails, so that a missing package is never hidden behind a later error.
set -u

# Grouped by what needs them; keep the README's "Building" list in step.
PKGS_BUILD="build-essential pkg-config zlib1g-dev"
PKGS_TEST="libcmocka-dev libxml2-utils"
PKGS_MPI="libopenmpi-dev openmpi-bin mpich libmpich-dev gfortran"
PKGS_APPS="hpcc"
PKGS_BROWSER="chromium"
# make bench: bench/json.sh compares common/jsonread.c with these two.
PKGS_BENCH="libjansson-dev libcjson-dev"
# Optional at build time: each feature that uses one of these builds only
# when its headers are present, and its command says what to install when
# not.  make deps and make check install them so that the tests cover them.
#   wire capture (record --wire): UCX and libfabric headers and tools
#   trace import/export otf2: the OTF2 library and otf2-print
#   trace import smpi, its case study: SimGrid (smpicc, smpirun)
#   latmodel fit: GSL;  culprits: XGBoost's C API
PKGS_OPT="libucx-dev ucx-utils libfabric-dev libfabric-bin libotf2-trace-dev otf2-tools libsimgrid-dev libgsl-dev libxgboost-dev"

want="$PKGS_BUILD $PKGS_TEST $PKGS_MPI $PKGS_APPS $PKGS_BROWSER $PKGS_BENCH $PKGS_OPT"
case "${1:-}" in
  --list) echo $want; exit 0 ;;
esac

missing=""
for p in $want; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
  case "$st" in
    *"install ok installed"*) ;;
    *) missing="$missing $p" ;;
  esac
done

if [ -z "$missing" ]; then
  echo "deps: all $(echo $want | wc -w) Debian packages present"
  exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y$missing"
if [ "$(id -u)" -ne 0 ]; then
  echo "deps: missing Debian packages:$missing" >&2
  echo "deps: run as root:  $cmd" >&2
  exit 1
fi
echo "deps: installing:$missing"
apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing
rc=$?
if [ $rc -ne 0 ]; then
  echo "deps: apt-get failed ($rc); the command was:  $cmd" >&2
  exit $rc
fi
