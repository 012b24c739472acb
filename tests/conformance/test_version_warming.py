"""Warming the version cache (backends/version_warming.py), on each backend.

A memory's first search starts reading and verifying all its active versions in the background
when they fit in the cache; later searches answer them from memory. Expand and the verifier
still read every row, so a row damaged after it was warmed is still reported there."""

from __future__ import annotations

import logging

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.backends.version_cache import VersionCache
from powercontext_memory.backends.version_warming import VersionWarmer
from powercontext_memory.domain.errors import DataLossError
from powercontext_memory.domain.models import ArtifactRef, Citation
from powercontext_memory.memory import MemoryService

from .conftest import Harness
from .helpers import create, ref

# Distinct words so that a search for one finds exactly its entry.
WORDS = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "granite", "harbor"]


async def _memory(service: MemoryService) -> tuple[ArtifactRef, dict[str, str]]:
    """A memory of one entry per word: (head, word -> entry version id)."""
    result = await create(service, *(f"the {w} convention applies" for w in WORDS))
    ids = {w: r.entry_version_id for w, r in zip(WORDS, result.results, strict=True)}
    return ref(result), ids


async def test_a_searched_memory_is_warmed_and_answered_from_memory(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    head, ids = await _memory(service)
    warmer = service.backend.version_warmer
    [first] = (await service.search(WORDS[0], [head], 8, SearchMode.FTS)).hits
    await warmer.settled()
    # Every row damaged now, after the warming: the search answers the versions it verified
    # before (immutable rows), never the damaged text...
    harness.tamper.execute("UPDATE memory_entry_versions SET text = 'tampered'")
    for word in WORDS[1:]:
        [hit] = (await service.search(word, [head], 8, SearchMode.FTS)).hits
        assert hit.entry_version_id == ids[word] and word in hit.text
    # ...and Expand, which reads the row every time, reports the damage.
    with pytest.raises(DataLossError):
        await service.expand([Citation(head, first.entry_id, first.entry_version_id)])


async def test_a_memory_larger_than_the_cache_is_not_warmed(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    head, ids = await _memory(service)
    backend = service.backend
    small = VersionCache(max_bytes=3 * 512)  # room for about three versions, not eight
    warmer = VersionWarmer(backend.read, small)
    warmer.warm([head])
    await warmer.settled()
    assert not any(v in small for v in ids.values())
    large = VersionCache()
    warmer = VersionWarmer(backend.read, large)
    warmer.warm([head])
    warmer.warm([head])  # once per memory
    await warmer.settled()
    assert all(v in large for v in ids.values())


async def test_warming_stops_at_a_damaged_row_and_the_search_still_reports_it(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    service = harness.service
    assert service is not None
    head, ids = await _memory(service)
    harness.tamper.execute(
        "UPDATE memory_entry_versions SET text = 'tampered' WHERE entry_version_id = ?",
        (ids[WORDS[-1]],),
    )
    with caplog.at_level(logging.WARNING, logger="powercontext_memory.backends.version_warming"):
        [hit] = (await service.search(WORDS[0], [head], 8, SearchMode.FTS)).hits
        await service.backend.version_warmer.settled()
    assert hit.entry_version_id == ids[WORDS[0]]
    assert any("warming the versions" in r.getMessage() for r in caplog.records)
    with pytest.raises(DataLossError):
        await service.search(WORDS[-1], [head], 8, SearchMode.FTS)


async def test_closing_the_service_cancels_warming_under_way(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    head, _ = await _memory(service)
    warmer = service.backend.version_warmer
    warmer.warm([head])
    await service.close()  # must neither hang nor leave a task behind
    await warmer.settled()
    harness.service = await harness.open()
