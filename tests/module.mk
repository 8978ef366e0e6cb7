# tests/: integration test helpers are shell scripts under tests/integration.

# The randomized scenario suite's generator, labeller and scorer
# (tests/helpers/scenarios.c, driven by examples/scenarios/run.sh); built by
# the generic tests/helpers rule.
TEST_EXTRA += $(BUILD)/tests/helpers/scenarios
