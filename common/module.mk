# common/: status codes, hs_error, JSON writer, strict parsers.
CORE_SRCS += common/status.c common/json.c common/util.c common/jsonread.c
INSTALL_HEADERS += include/hopscope/common.h
UNIT_TESTS += tests/unit/test_common.c tests/unit/test_jsonread.c
