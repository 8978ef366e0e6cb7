# hash/: GF(2^k), the in-band field codec, marking, NIC counters, decoders.
CORE_SRCS += hash/gf.c hash/scheme.c hash/counters.c hash/wht.c hash/decode.c
INSTALL_HEADERS += include/hopscope/hash.h
UNIT_TESTS += tests/unit/test_gf.c tests/unit/test_field.c tests/unit/test_hash_api.c \
              tests/unit/test_decode.c tests/unit/test_stats.c
# The WHT and counter loops are the hot paths: let gcc vectorise them.
CFLAGS_hash_ := -O3
