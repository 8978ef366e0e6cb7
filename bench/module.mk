# bench/: benchmark programs (bench/*.c) and their driver scripts (bench/*.sh).
# json_libs compares common/jsonread.c with jansson and cJSON (bench/json.sh):
# built only when their Debian -dev packages are installed.
ifneq ($(wildcard /usr/include/jansson.h),)
ifneq ($(wildcard /usr/include/cjson/cJSON.h),)
HAVE_JSON_LIBS := 1
endif
endif
BENCH_SRCS += $(filter-out $(if $(HAVE_JSON_LIBS),,bench/json_libs.c),$(wildcard bench/*.c))
$(BUILD)/bench/json_libs: LDLIBS_CORE += -ljansson -lcjson
