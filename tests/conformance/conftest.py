"""Conformance fixtures: every test here runs against each backend in BACKENDS."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from powercontext_memory.app import open_sqlite_service
from powercontext_memory.backends.database import CommitHook
from powercontext_memory.memory import MemoryService

from .tamper import SQLiteTamper, Tamper

BACKENDS = ["sqlite"]


class Harness:
    """A running service on one backend plus a raw-storage tamper tool."""

    def __init__(self, backend: str, path: Path) -> None:
        self.backend = backend
        self.path = path
        self.hook_calls: list[str] = []
        self.fail_at: str | None = None
        self.service: MemoryService | None = None
        self.tamper: Tamper = SQLiteTamper(path)

    def hook(self, step: str) -> None:
        self.hook_calls.append(step)
        if step == self.fail_at:
            raise RuntimeError(f"injected failure at {step}")

    async def open(self) -> MemoryService:
        hook: CommitHook = self.hook
        self.service = await open_sqlite_service(self.path, progress_interval=0.2, commit_hook=hook)
        return self.service


@pytest.fixture(params=BACKENDS)
async def harness(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    h = Harness(request.param, tmp_path / "memory.sqlite3")
    await h.open()
    yield h
    assert h.service is not None
    await h.service.close()


@pytest.fixture
def service(harness: Harness) -> MemoryService:
    assert harness.service is not None
    return harness.service
