"""`-p tests.spawn_guard`: a test that starts a process without the `spawn` marker fails.

`make test-fast` loads it, so the fast tier stays free of process starts and the `spawn`
marks in tests/conftest.py stay true: a new test (or fixture) that runs a subprocess, a
multiprocessing worker or a fork fails there with the command it started, until it is marked.
"""

from __future__ import annotations

import _posixsubprocess
import sys
from collections.abc import Callable, Generator
from typing import Any

import pytest

_started: list[str] = []  # processes started since the current test phase began
_watching = False
_EVENTS = {"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn", "os.system", "os.exec"}


def _audit(event: str, args: tuple[Any, ...]) -> None:
    # ctypes.util.find_library asks `ldconfig -p`: a library lookup, not a test's process.
    if _watching and event in _EVENTS and "ldconfig" not in str(args[:1]):
        _started.append(f"{event} {args[:2]!r}")


def _watched(fork_exec: Callable[..., int]) -> Callable[..., int]:
    # multiprocessing's spawn/forkserver workers start here with no audit event of their own.
    def fork_exec_watched(*args: Any, **kwargs: Any) -> int:
        if _watching:
            _started.append(f"multiprocessing {args[0]!r}")
        return fork_exec(*args, **kwargs)

    return fork_exec_watched


def pytest_configure(config: pytest.Config) -> None:
    global _watching
    sys.addaudithook(_audit)  # hooks cannot be removed; _watching switches it off
    _posixsubprocess.fork_exec = _watched(_posixsubprocess.fork_exec)
    _watching = True


def pytest_unconfigure(config: pytest.Config) -> None:
    global _watching
    _watching = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    started, _started[:] = list(_started), []
    if started and item.get_closest_marker("spawn") is None and report.outcome != "failed":
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} started a process in {report.when} but is not marked `spawn` "
            "(tests/conftest.py, SPAWNS):\n  " + "\n  ".join(started[:5])
        )
    return report
