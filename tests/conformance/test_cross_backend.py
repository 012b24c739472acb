"""The same data and queries give the same hits in the same order on SQLite and OceanBase.

Scores are not compared (engines compute distances in their own float arithmetic); entries and
their order are. Ids come from a counter so that tie-breaks (by id bytes) are the same too.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.memory import MemoryService

from ..oceanbase_server import fresh_database
from .flaky_model import FlakyModel
from .helpers import add, entry_ref, ref, revise

CORPUS = [
    "Release script publishing packages lives in tools/ship.sh.",
    "Integration tests need a local PostgreSQL listening on port 5433.",
    "Prefer small pull requests with one concern each.",
    "Run the release checklist before tagging a version.",
    "The CI pipeline runs unit tests, then integration tests, then the release build.",
    "Go services are built with make build; UI assets with npm run build.",
    "Database migrations live in db/migrations and run at deploy time.",
    "Never force-push to main; open a pull request instead.",
    "The staging database is reset every night at 02:00 UTC.",
    "Tests that touch the network are marked slow and skipped by default.",
    "Package versions are pinned in requirements.txt; bump them in one pull request.",
    "Release notes are written in docs/releases, one file per version.",
    "The deploy script reads secrets from the vault, never from the repository.",
    "Use the build cache: make build reuses artifacts from the last green run.",
    "配置文件在 config 目录，发布前检查版本号。",
    "数据库迁移在部署时运行。",
    "Go to the UI folder to run the design system tests.",
    "db tests need the db container up: make db-up.",
]
QUERIES = [
    "release",
    "release version",
    "pull request",
    "tests integration database",
    "make build",
    "go ui db",
    "版本",
    "数据库 部署",
    "how do I ship a new version",
    "where are database schema changes kept",
]


def _counter_ids() -> Callable[[str], str]:
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}{next(counter):08d}"


async def _results(
    service: MemoryService, memories: list[ArtifactRef], mode: SearchMode
) -> list[list[str]]:
    out = []
    for query in QUERIES:
        result = await service.search(query, memories, 6, mode)
        assert result.mode is mode
        out.append([f"{h.entry_id} {h.matched_by}" for h in result.hits])
    return out


async def _build(service: MemoryService) -> list[ArtifactRef]:
    first = await service.remember(None, [], [], [add(t) for t in CORPUS[:10]])
    second = ref(await service.remember(None, [], [], [add(t) for t in CORPUS[10:]]))
    # A deactivation and a revision, so that the projection is not just the first write.
    pipeline = entry_ref(first, 4)  # the CI pipeline entry
    forgotten = await service.forget(ref(first), [pipeline], None)
    revised = await service.remember(
        ref(forgotten), [], [], [revise(entry_ref(first, 0), CORPUS[0] + " Tag it first.")]
    )
    return [ref(revised), second]


@pytest.fixture
async def both(
    tmp_path: Path, oceanbase_server: str, minilm: MiniLMEmbedder
) -> AsyncIterator[dict[str, MemoryService]]:
    # FlakyModel only shields the session's shared model from each service's close().
    async with fresh_database(oceanbase_server) as dsn:
        services = {
            "sqlite": await open_service(
                tmp_path / "x.sqlite3", embedding=FlakyModel(minilm), id_factory=_counter_ids()
            ),
            "oceanbase": await open_service(
                dsn, embedding=FlakyModel(minilm), id_factory=_counter_ids()
            ),
        }
        try:
            yield services
        finally:
            for service in services.values():
                await service.close()


@pytest.mark.parametrize("mode", [SearchMode.FTS, SearchMode.HYBRID, SearchMode.VECTOR])
async def test_same_hits_in_the_same_order_on_both_backends(
    both: dict[str, MemoryService], mode: SearchMode
) -> None:
    memories = {name: await _build(service) for name, service in both.items()}
    assert memories["sqlite"] == memories["oceanbase"]  # same ids, same revisions
    sqlite = await _results(both["sqlite"], memories["sqlite"], mode)
    oceanbase = await _results(both["oceanbase"], memories["oceanbase"], mode)
    assert sum(1 for hits in sqlite if hits) >= 6  # the queries do find things
    assert sqlite == oceanbase
