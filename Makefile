# hopscope — top-level build.  Non-recursive: each module adds its sources,
# tests and targets in <module>/module.mk; this file owns the rules.
#
#   make                 everything (core library, hopscope command, interposers)
#   make check           install missing Debian packages, build, run all tests,
#                        the unit tests again and the hopscope command under
#                        ASan+UBSan
#   make bench           benchmarks; figures go to docs/performance.md
#   make demo            install missing packages, build, run `hopscope demo`
#   make deps            install missing Debian packages (root) or say how
#   make install PREFIX=/usr/local

VERSION    := 0.1.0
PREFIX     ?= /usr/local
BUILD      ?= build
CC         := gcc
WERROR     ?= 1

include mk/optional.mk

WARN       := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
ifeq ($(WERROR),1)
WARN       += -Werror
endif
BASEFLAGS  := -std=c11 -D_GNU_SOURCE -Iinclude -fPIC -g $(WARN) \
              -DHS_VERSION=\"$(VERSION)\" $(HS_OPT_DEFS)
OPT        ?= -O2
CFLAGS_REL := $(BASEFLAGS) $(OPT)
CFLAGS_SAN := $(BASEFLAGS) -O1 -fno-omit-frame-pointer \
              -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDLIBS_CORE := -lz -lm -ldl -lpthread $(LDLIBS_OPT)

# Module fragments may define explicit rules: `make` alone still means `all`.
.DEFAULT_GOAL := all

# Filled by the module fragments.
CORE_SRCS  :=
CLI_SRCS   :=
UNIT_TESTS :=
BENCH_SRCS :=
ALL_TARGETS :=
INSTALL_HEADERS :=

include common/module.mk
include $(wildcard hash/module.mk libtrace/module.mk fabric/module.mk replay/module.mk \
                   analyzer/module.mk viz/module.mk cli/module.mk \
                   examples/module.mk bench/module.mk tests/module.mk)

CORE_OBJS     := $(CORE_SRCS:%.c=$(BUILD)/obj/%.o)
CORE_SAN_OBJS := $(CORE_SRCS:%.c=$(BUILD)/san/obj/%.o)
CORE_LIB      := $(BUILD)/lib/libhopscope-core.a
CORE_SO       := $(BUILD)/lib/libhopscope-core.so
CORE_SAN_LIB  := $(BUILD)/san/lib/libhopscope-core.a
HOPSCOPE      := $(BUILD)/bin/hopscope
HOPSCOPE_SAN  := $(BUILD)/san/bin/hopscope
UNIT_BINS     := $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_SAN_BINS := $(UNIT_TESTS:tests/unit/%.c=$(BUILD)/san/tests/%)
BENCH_BINS    := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all check bench demo deps install tests clean help
all: $(CORE_LIB) $(CORE_SO) $(HOPSCOPE) $(ALL_TARGETS)

help:
	@sed -n '2,12p' Makefile

deps:
	@./mk/deps.sh

# check and demo re-enter make after deps, so that variables that depend on
# installed packages are evaluated against what is now there.
check: deps
	@$(MAKE) --no-print-directory all tests
	@tests/run.sh $(BUILD)

demo: deps
	@$(MAKE) --no-print-directory all
	@$(HOPSCOPE) demo

bench: 
	@$(MAKE) --no-print-directory all $(BENCH_BINS)
	@bench/run.sh $(BUILD)

tests: $(UNIT_BINS) $(UNIT_SAN_BINS) $(HOPSCOPE_SAN) $(TEST_EXTRA)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_REL) $(CFLAGS_$(subst /,_,$(dir $<))) -MMD -MP -c $< -o $@

$(BUILD)/san/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_SAN) $(CFLAGS_$(subst /,_,$(dir $<))) -MMD -MP -c $< -o $@

$(CORE_LIB): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CORE_SO): $(CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -o $@ $^ $(LDLIBS_CORE)

$(CORE_SAN_LIB): $(CORE_SAN_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(HOPSCOPE): $(CLI_SRCS:%.c=$(BUILD)/obj/%.o) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_CORE)

# The command itself under ASan+UBSan: the integration suite san_cli.sh
# drives it over every reader and stage.
$(HOPSCOPE_SAN): $(CLI_SRCS:%.c=$(BUILD)/san/obj/%.o) $(CORE_SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=address,undefined -o $@ $^ $(LDLIBS_CORE)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lcmocka $(LDLIBS_CORE)

$(BUILD)/san/tests/%: $(BUILD)/san/obj/tests/unit/%.o $(CORE_SAN_LIB)
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=address,undefined -o $@ $^ -lcmocka $(LDLIBS_CORE)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ $(LDLIBS_CORE)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	           $(DESTDIR)$(PREFIX)/include/hopscope
	install -m 755 $(HOPSCOPE) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(CORE_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(CORE_SO) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(PREFIX)/include/hopscope/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    mk/hopscope.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/hopscope.pc
	$(INSTALL_EXTRA)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
