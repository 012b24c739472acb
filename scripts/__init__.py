"""Repository scripts (run as files; importable for tests and bench)."""
