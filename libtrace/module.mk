# libtrace/: trace format (reader, writer, summaries) into the core library,
# and the interposer libhopscope.so, built once per MPI because the handle
# types differ (MPI_Comm is an int in MPICH, a pointer in Open MPI):
#   $(BUILD)/lib/openmpi/libhopscope.so   $(BUILD)/lib/mpich/libhopscope.so
CORE_SRCS += libtrace/format.c libtrace/manifest.c libtrace/writer.c \
             libtrace/reader.c libtrace/stats.c
INSTALL_HEADERS += include/hopscope/trace.h
UNIT_TESTS += tests/unit/test_trace_format.c

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
