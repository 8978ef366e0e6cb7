# fabric/: the packet-level interconnect model and the MPI replay.
CORE_SRCS += fabric/coll.c
UNIT_TESTS += tests/unit/test_coll.c
