# tests/: integration test helpers are shell scripts under tests/integration.
