# libtrace/: trace format (reader, writer, summaries) into the core library,
# and the interposer libhopscope.so, built once per MPI because the handle
# types differ (MPI_Comm is an int in MPICH, a pointer in Open MPI):
#   $(BUILD)/lib/openmpi/libhopscope.so   $(BUILD)/lib/mpich/libhopscope.so
CORE_SRCS += libtrace/format.c libtrace/manifest.c libtrace/writer.c \
             libtrace/reader.c libtrace/stats.c libtrace/wirestats.c libtrace/import_smpi.c \
             libtrace/otf2.c
INSTALL_HEADERS += include/hopscope/trace.h
UNIT_TESTS += tests/unit/test_trace_format.c tests/unit/test_trace_wire.c \
              tests/unit/test_import_smpi.c

HS_MPIS := openmpi mpich
MPI_PC_openmpi := ompi-c
MPI_PC_mpich := mpich
MPI_CFLAGS_openmpi := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_CFLAGS_mpich := $(shell pkg-config --cflags mpich 2>/dev/null)
INTERPOSE_SRCS := $(wildcard libtrace/interpose/*.c)
INTERPOSE_MAP := libtrace/interpose/libhopscope.map
# Only the MPIs whose development files are installed (make deps installs both).
HS_MPIS_FOUND := $(foreach m,$(HS_MPIS),$(if $(MPI_CFLAGS_$(m)),$(m)))
INTERPOSE_LIBS := $(foreach m,$(HS_MPIS_FOUND),$(BUILD)/lib/$(m)/libhopscope.so)
ALL_TARGETS += $(INTERPOSE_LIBS)

define HS_INTERPOSER
$(BUILD)/interpose/$(1)/%.o: libtrace/interpose/%.c
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_REL) $$(MPI_CFLAGS_$(1)) -MMD -MP -c $$< -o $$@

# No libmpi on the link line: the real functions are found with dlsym at run
# time, so preloading the library into a non-MPI process is harmless.
$(BUILD)/lib/$(1)/libhopscope.so: $(INTERPOSE_SRCS:libtrace/interpose/%.c=$(BUILD)/interpose/$(1)/%.o) \
                                  $(BUILD)/lib/libhopscope-core.a $(INTERPOSE_MAP)
	@mkdir -p $$(dir $$@)
	$$(CC) -shared -o $$@ $$(filter %.o,$$^) $(BUILD)/lib/libhopscope-core.a \
	    -Wl,--version-script=$(INTERPOSE_MAP) -Wl,-soname,libhopscope.so -lz -ldl -lpthread
endef
$(foreach m,$(HS_MPIS_FOUND),$(eval $(call HS_INTERPOSER,$(m))))

INSTALL_EXTRA += for m in $(HS_MPIS_FOUND); do \
	  install -d $(DESTDIR)$(PREFIX)/lib/$$m && \
	  install -m 755 $(BUILD)/lib/$$m/libhopscope.so $(DESTDIR)$(PREFIX)/lib/$$m/ || exit 1; \
	done;

# MPI test programs of known communication (tests/mpi/), built per MPI into
# $(BUILD)/tests/mpi/<mpi>/ for tests/integration/libtrace_*.sh.
MPI_TEST_SRCS := $(wildcard tests/mpi/*.c tests/mpi/*.cpp tests/mpi/*.f tests/mpi/*.f90)
MPI_TEST_NAMES := $(basename $(notdir $(MPI_TEST_SRCS)))
MPI_TEST_FFLAGS := -O1 -g -fallow-argument-mismatch
# MPICH's MPI_STATUS(ES)_IGNORE is the address 1, which gcc 12 takes for a
# zero-length array that MPI_Waitall would write.
MPI_TEST_CWARN := -Wno-stringop-overflow
define HS_MPI_TESTS
$(BUILD)/tests/mpi/$(1)/%: tests/mpi/%.c tests/mpi/common.h
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -std=gnu11 -O2 -g -Wall -Wextra -Werror $(MPI_TEST_CWARN) -o $$@ $$< -lpthread
$(BUILD)/tests/mpi/$(1)/%: tests/mpi/%.cpp
	@mkdir -p $$(dir $$@)
	mpicxx.$(1) -O2 -g -Wall -Werror -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX -o $$@ $$<
$(BUILD)/tests/mpi/$(1)/%: tests/mpi/%.f
	@mkdir -p $$(dir $$@)
	mpif90.$(1) $(MPI_TEST_FFLAGS) -J $$(dir $$@) -o $$@ $$<
$(BUILD)/tests/mpi/$(1)/%: tests/mpi/%.f90
	@mkdir -p $$(dir $$@)
	mpif90.$(1) $(MPI_TEST_FFLAGS) -J $$(dir $$@) -o $$@ $$<
TEST_EXTRA += $(addprefix $(BUILD)/tests/mpi/$(1)/,$(MPI_TEST_NAMES))
endef
$(foreach m,$(HS_MPIS_FOUND),$(eval $(call HS_MPI_TESTS,$(m))))

# Test helpers that read traces (not unit tests: run.sh only runs the files
# directly in $(BUILD)/tests/).
$(BUILD)/tests/helpers/%: tests/helpers/%.c $(BUILD)/lib/libhopscope-core.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -o $@ $< $(BUILD)/lib/libhopscope-core.a $(LDLIBS_CORE)
TEST_EXTRA += $(BUILD)/tests/helpers/trace_sampling $(BUILD)/tests/helpers/wire_check

# MPI benchmark programs (bench/mpi/), per MPI, for bench/trace_overhead.sh.
BENCH_MPI_NAMES := $(basename $(notdir $(wildcard bench/mpi/*.c)))
define HS_MPI_BENCH
$(BUILD)/bench/mpi/$(1)/%: bench/mpi/%.c
	@mkdir -p $$(dir $$@)
	mpicc.$(1) -std=gnu11 -O2 -g -Wall -Wextra -Werror $(MPI_TEST_CWARN) -o $$@ $$<
ALL_TARGETS += $(addprefix $(BUILD)/bench/mpi/$(1)/,$(BENCH_MPI_NAMES))
endef
$(foreach m,$(HS_MPIS_FOUND),$(eval $(call HS_MPI_BENCH,$(m))))

# libhopscope-wire.so: the capture below MPI that `hopscope record --wire`
# preloads beside libhopscope.so (docs/wire.md).  One build for both MPIs:
# it includes no MPI header, learns the rank, clock and trace directory from
# libhopscope.so (libtrace/wire_host.h), and finds the real UCP functions
# with dlsym, so nothing is linked into the application.  Without UCX's
# headers it is not built and `record --wire` says which package to install;
# libfabric's part (wire_ofi.c) is compiled in when its headers are present.
WIRE_SRCS := $(wildcard libtrace/wire/*.c)
WIRE_MAP := libtrace/wire/libhopscope-wire.map
ifeq ($(HS_HAVE_UCX),1)
WIRE_LIB := $(BUILD)/lib/libhopscope-wire.so
ALL_TARGETS += $(WIRE_LIB)
$(BUILD)/wire/%.o: libtrace/wire/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) -MMD -MP -c $< -o $@
$(WIRE_LIB): $(WIRE_SRCS:libtrace/wire/%.c=$(BUILD)/wire/%.o) $(BUILD)/lib/libhopscope-core.a \
             $(WIRE_MAP)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $(filter %.o,$^) $(BUILD)/lib/libhopscope-core.a \
	    -Wl,--version-script=$(WIRE_MAP) -Wl,-soname,libhopscope-wire.so -lz -ldl -lpthread
INSTALL_EXTRA += install -m 755 $(WIRE_LIB) $(DESTDIR)$(PREFIX)/lib/;
# tests/wire/ucpself.c (tests/integration/wire.sh): an MPICH program that
# calls UCP itself (known numbers of progress calls, a stream), so it links
# libucp.
ifneq ($(filter mpich,$(HS_MPIS_FOUND)),)
$(BUILD)/tests/wire/ucpself: tests/wire/ucpself.c
	@mkdir -p $(dir $@)
	mpicc.mpich -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $< -lucp -lucs -lpthread
TEST_EXTRA += $(BUILD)/tests/wire/ucpself
endif
endif
# The Score-P-shaped OTF2 archive writer of tests/integration/otf2.sh (prints
# "skip" and exits 77 when built without OTF2).
TEST_EXTRA += $(BUILD)/tests/helpers/otf2_scorep
