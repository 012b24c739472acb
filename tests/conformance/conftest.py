"""Conformance fixtures: every test here runs against each backend in BACKENDS."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest

from powercontext_memory.app import open_service
from powercontext_memory.backends.database import CommitHook
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.embedding.port import EmbeddingModel
from powercontext_memory.memory import MemoryService

from ..oceanbase_server import empty_database
from .flaky_model import FlakyModel
from .tamper import Tamper, tamper_for

BACKENDS = ["sqlite", "oceanbase"]


class Harness:
    """A running service on one backend (database `location`) plus a raw-storage tamper tool."""

    def __init__(self, backend: str, location: str | Path) -> None:
        self.backend = backend
        self.location = location
        self.hook_calls: list[str] = []
        self.fail_at: str | None = None
        # Run once when the commit reaches the step (e.g. another process's commit).
        self.interleave: dict[str, Callable[[], None]] = {}
        self.service: MemoryService | None = None
        self.tamper: Tamper = tamper_for(backend, location)

    def hook(self, step: str) -> None:
        self.hook_calls.append(step)
        action = self.interleave.pop(step, None)
        if action is not None:
            action()
        if step == self.fail_at:
            raise RuntimeError(f"injected failure at {step}")

    async def open(self, embedding: EmbeddingModel | None = None) -> MemoryService:
        """A service on this database (tests may open several, like several servers)."""
        hook: CommitHook = self.hook
        self.service = await open_service(
            self.location, embedding=embedding, progress_interval=0.2, commit_hook=hook
        )
        return self.service


@pytest.fixture(params=BACKENDS)
async def database(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[str, str | Path]]:
    """(backend, location) of an empty database (on OceanBase, maybe one emptied for reuse)."""
    if request.param == "sqlite":
        yield "sqlite", tmp_path / "memory.sqlite3"
        return
    server: str = request.getfixturevalue("oceanbase_server")
    async with empty_database(server) as dsn:
        yield "oceanbase", dsn


@pytest.fixture
async def harness(database: tuple[str, str | Path]) -> AsyncIterator[Harness]:
    h = Harness(*database)
    await h.open()
    yield h
    assert h.service is not None
    await h.service.close()


@pytest.fixture
def service(harness: Harness) -> MemoryService:
    assert harness.service is not None
    return harness.service


@pytest.fixture(scope="session")
def minilm() -> Iterator[MiniLMEmbedder]:
    model = asyncio.run(MiniLMEmbedder.open())
    yield model
    asyncio.run(model.close())


@pytest.fixture
def flaky(minilm: MiniLMEmbedder) -> FlakyModel:
    """The real MiniLM behind FlakyModel (flaky_model.py), fresh for each test."""
    return FlakyModel(minilm)


@pytest.fixture
async def vservice(
    database: tuple[str, str | Path], flaky: FlakyModel
) -> AsyncIterator[MemoryService]:
    """A service on this backend whose embedding model is `flaky`."""
    service = await open_service(database[1], embedding=flaky)
    yield service
    await service.close()
