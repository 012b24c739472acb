"""Session-wide fixtures shared by every test directory, and the markers every test gets."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

# Clients in this process never start the user's local server (its own tests opt in).
os.environ["POWERCONTEXT_LOCAL_SERVER"] = "off"

from .oceanbase_server import running_seekdb


@pytest.fixture(scope="session")
def oceanbase_server() -> Iterator[str]:
    """DSN of a running seekdb server (see tests/oceanbase_server.py)."""
    with running_seekdb() as dsn:
        yield dsn


# --- Markers (declared in pyproject.toml), applied here and only here ---------------------------
# `make test` runs everything; `make test-fast` deselects oceanbase, spawn and hosts and loads
# tests/spawn_guard.py, which fails an unmarked test that starts a process. Rules first (by
# directory, fixture and parameter), then the tables for what no rule can see.

# Every test in these directories gets these markers.
# A cold image build, and the real host CLIs' first runs, take minutes on 2 cores.
LONG_RUNNING = frozenset({"container", "hosts"})
LONG_TIMEOUT = 1800

DIRECTORY_MARKS = {
    "e2e": ("e2e", "spawn"),  # most start servers and CLIs; the in-process ones go with them
    "robustness": ("spawn",),  # real server processes, kill -9
    "hosts": ("hosts", "spawn"),  # the pinned host CLIs from tests/hosts/npm, our server, mocks
    "browser": ("browser", "spawn"),  # Chromium on the web console, a server with its HTTP door
}
# Node id (or a prefix of one: a module, a class) -> markers, for tests that start a process or
# seekdb in their own body.
SPAWNS: dict[str, tuple[str, ...]] = {
    # starts and stops a seekdb of its own
    "tests/conformance/test_oceanbase_adapter.py::"
    "test_an_unreachable_database_is_unavailable_not_internal": ("oceanbase", "spawn"),
    # builds the image with podman and runs it (scripts/container.py)
    "tests/e2e/test_container.py": ("container", "spawn"),
    # runs hadolint
    "tests/unit/test_dockerfile.py::test_hadolint_passes": ("spawn",),
    # runs the installed console scripts' --help
    "tests/unit/test_cli_reference.py::test_the_page_shows_what_help_prints": ("spawn",),
    # multiprocessing workers; `git init` and `powercontext setup` as subprocesses
    **{
        f"tests/unit/test_runtime_local.py::{name}": ("spawn",)
        for name in (
            "test_manifest_keeps_every_update_of_concurrent_processes",
            "test_setup_claude_project_writes_portable_files_and_records_the_endpoint",
            "test_setup_replaces_an_older_setups_absolute_path_in_place",
            "test_setup_codex_user_edits_config_toml_keeping_comments",
            "test_setup_removes_our_hooks_from_events_that_need_none",
            "test_a_block_gemini_already_put_before_the_prompt_is_not_sent_again",
            "test_setup_gemini_project_merges_into_settings_json_portably",
        )
    },
}
# Node id prefix -> why it is slow (several seconds or more on 2 cores; see --durations).
SLOW: dict[str, str] = {
    "tests/e2e/test_wheel_install.py": "builds both wheels and installs them into three venvs",
    "tests/e2e/test_container.py": "makes a Debian base, builds the image, runs it with podman",
    "tests/e2e/test_seekdb_script.py": "starts seekdb four times",
    "tests/conformance/test_oceanbase_plans.py": "loads MiniLM and seeds seekdb",
    "tests/conformance/test_oceanbase_fts.py::"
    "test_vector_search_keeps_to_its_memory_on_both_paths": "seeds seekdb with vectors, each",
}


def _uses_oceanbase(item: pytest.Item) -> bool:
    """Needs the engine: its fixtures include oceanbase_server, or it is parametrised onto the
    OceanBase backend (the `database` fixtures ask for oceanbase_server only at run time)."""
    if "oceanbase_server" in getattr(item, "fixturenames", ()):
        return True
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(
        isinstance(value, str) and value == "oceanbase" for value in callspec.params.values()
    )


def _prefixed(table: dict[str, tuple[str, ...]] | dict[str, str], nodeid: str) -> list[str]:
    return [key for key in table if nodeid == key or nodeid.startswith((key + "::", key + "["))]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        nodeid = item.nodeid
        parts = nodeid.split("::", 1)[0].split("/")
        names: set[str] = set()
        if len(parts) > 2 and parts[0] == "tests":
            names.update(DIRECTORY_MARKS.get(parts[1], ()))
        if _uses_oceanbase(item):
            names.add("oceanbase")
        for key in _prefixed(SPAWNS, nodeid):
            names.update(SPAWNS[key])
        if _prefixed(SLOW, nodeid):
            names.add("slow")
        for name in sorted(names):
            item.add_marker(name)
        if names & LONG_RUNNING:
            item.add_marker(pytest.mark.timeout(LONG_TIMEOUT))
    # The real host CLIs last (in their own order): they time the hosts' turns, and in `make
    # test` the image build and most of the other runs beside them have finished by then.
    items.sort(key=lambda item: item.get_closest_marker("hosts") is not None)
