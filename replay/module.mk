# replay/: the MPI replay on top of fabric/ (trace loading, rank actors,
# point-to-point protocols, collective algorithms, RMA, background jobs,
# rank-to-node mappings, synthetic trace generation).
CORE_SRCS += replay/coll.c replay/mapping.c replay/gen.c replay/replay.c replay/replay_load.c replay/replay_wire.c \
             replay/replay_actor.c replay/replay_out.c replay/mpi_p2p.c replay/mpi_coll.c \
             replay/mpi_rma.c replay/background.c replay/replay_par.c
# Same optimisation as before the split (the replay was compiled with
# fabric's -O3).  Only public headers of fabric/: no -Ifabric.
CFLAGS_replay_ := -O3
INSTALL_HEADERS += include/hopscope/replay.h
UNIT_TESTS += tests/unit/test_coll.c
UNIT_TESTS += tests/unit/test_replay.c tests/unit/test_replay_wire.c tests/unit/test_gen.c
