# tests/: integration test helpers are shell scripts under tests/integration.

# The fuzzer (tests/fuzz/run.sh, tests/integration/fuzz.sh) against the
# sanitized core; not under $(BUILD)/san/tests, which run.sh runs as unit
# suites.
$(BUILD)/san/fuzz/hs_fuzz: $(BUILD)/san/obj/tests/fuzz/hs_fuzz.o $(BUILD)/san/lib/libhopscope-core.a
	@mkdir -p $(dir $@)
	$(CC) -fsanitize=address,undefined -o $@ $^ $(LDLIBS_CORE)
TEST_EXTRA += $(BUILD)/san/fuzz/hs_fuzz

# The randomized scenario suite's generator, labeller and scorer
# (tests/helpers/scenarios.c, driven by examples/scenarios/run.sh); built by
# the generic tests/helpers rule.
TEST_EXTRA += $(BUILD)/tests/helpers/scenarios
