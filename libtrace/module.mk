# libtrace/: trace format (reader, writer, summaries) into the core library;
# the interposer libhopscope.so is built per MPI by libtrace/interpose.mk.
CORE_SRCS += libtrace/format.c libtrace/manifest.c libtrace/writer.c \
             libtrace/reader.c libtrace/stats.c
INSTALL_HEADERS += include/hopscope/trace.h
UNIT_TESTS += tests/unit/test_trace_format.c
