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

# bench/wire/ucpcost.c (bench/wire_overhead.sh): an MPICH program that calls
# UCP itself, so it links libucp; built only with UCX's headers and MPICH.
ifeq ($(HS_HAVE_UCX),1)
ifneq ($(filter mpich,$(HS_MPIS_FOUND)),)
$(BUILD)/bench/wire/ucpcost: bench/wire/ucpcost.c
	@mkdir -p $(dir $@)
	mpicc.mpich -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $< -lucp -lucs
ALL_TARGETS += $(BUILD)/bench/wire/ucpcost
endif
endif
# bench/wire/oficost.c: the same for libfabric's tagged calls (shm provider).
ifeq ($(HS_HAVE_FABRIC),1)
ifneq ($(filter mpich,$(HS_MPIS_FOUND)),)
$(BUILD)/bench/wire/oficost: bench/wire/oficost.c
	@mkdir -p $(dir $@)
	mpicc.mpich -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $< -lfabric
ALL_TARGETS += $(BUILD)/bench/wire/oficost
endif
endif
