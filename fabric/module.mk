# fabric/: the packet-level interconnect model (topologies, routing, the
# engine with NICs, switches, links and credit flow control, in-band
# marking through hash/, synthetic traffic, the run-directory writer).
CORE_SRCS += fabric/units.c fabric/topo.c fabric/topo_fattree.c \
             fabric/topo_dragonfly.c fabric/topo_torus.c fabric/topo_file.c \
             fabric/engine.c fabric/fabric.c fabric/link.c fabric/switch.c \
             fabric/nic.c fabric/route.c fabric/route_fattree.c \
             fabric/route_dragonfly.c fabric/route_torus.c fabric/truth.c \
             fabric/traffic.c fabric/rundir_write.c fabric/deadlock.c \
             fabric/pdes.c fabric/pdes_merge.c fabric/payload.c \
             fabric/router_booksim.c
INSTALL_HEADERS += include/hopscope/fabric.h
# The event loop and device code are the hot path.
CFLAGS_fabric_ := -O3
UNIT_TESTS += tests/unit/test_fabric_topo.c tests/unit/test_fabric_engine.c \
              tests/unit/test_fabric_rundir.c tests/unit/test_fabric_pdes.c \
              tests/unit/test_fabric_booksim.c
# Reads a run directory's ground truth per link class (tests/integration/replay*.sh).
TEST_EXTRA += $(BUILD)/tests/helpers/truth_links
