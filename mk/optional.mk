# Optional libraries.  Each is detected with pkg-config; a feature that needs
# one compiles its real code only when HS_HAVE_<LIB> is 1 (the define
# -DHS_HAVE_<LIB>=1 is then on every compile line), and otherwise a fallback
# that returns an error naming the Debian package to install (mk/deps.sh
# PKGS_OPT lists them; make deps installs them).
#
#   HS_HAVE_UCX      ucx        libucx-dev        wire capture (UCP)
#   HS_HAVE_FABRIC   libfabric  libfabric-dev     wire capture (libfabric)
#   HS_HAVE_OTF2     otf2       libotf2-trace-dev trace import/export otf2
#   HS_HAVE_GSL      gsl        libgsl-dev        latmodel fit
#   HS_HAVE_XGBOOST  xgboost    libxgboost-dev    culprits
#   HS_HAVE_SIMGRID  simgrid    libsimgrid-dev    SMPI case study, tests
#
# LDLIBS_OPT (the libraries of the present ones that the hopscope command
# uses: OTF2, GSL, XGBoost) goes on the link of the command, the core shared
# library and the tests; never on the preload interposers, which must not
# pull libraries into the application (--as-needed: a library is recorded
# only where an object uses it).  The wire capture includes the UCX
# and libfabric headers only (it finds the real functions with dlsym).
hs_pc = $(shell pkg-config --exists $(1) 2>/dev/null && echo 1 || echo 0)

HS_HAVE_UCX     := $(call hs_pc,ucx)
HS_HAVE_FABRIC  := $(call hs_pc,libfabric)
HS_HAVE_OTF2    := $(call hs_pc,otf2)
HS_HAVE_GSL     := $(call hs_pc,gsl)
HS_HAVE_XGBOOST := $(call hs_pc,xgboost)
HS_HAVE_SIMGRID := $(call hs_pc,simgrid)

HS_OPT_DEFS :=
LDLIBS_OPT  := -Wl,--as-needed
ifeq ($(HS_HAVE_UCX),1)
HS_OPT_DEFS += -DHS_HAVE_UCX=1
endif
ifeq ($(HS_HAVE_FABRIC),1)
HS_OPT_DEFS += -DHS_HAVE_FABRIC=1
endif
ifeq ($(HS_HAVE_OTF2),1)
HS_OPT_DEFS += -DHS_HAVE_OTF2=1 $(shell pkg-config --cflags otf2)
LDLIBS_OPT  += $(shell pkg-config --libs otf2)
endif
ifeq ($(HS_HAVE_GSL),1)
HS_OPT_DEFS += -DHS_HAVE_GSL=1
LDLIBS_OPT  += $(shell pkg-config --libs gsl)
endif
ifeq ($(HS_HAVE_XGBOOST),1)
HS_OPT_DEFS += -DHS_HAVE_XGBOOST=1
LDLIBS_OPT  += $(shell pkg-config --libs xgboost)
endif
ifeq ($(HS_HAVE_SIMGRID),1)
HS_OPT_DEFS += -DHS_HAVE_SIMGRID=1
endif
