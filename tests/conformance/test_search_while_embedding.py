"""Search embeds its query while it reads the heads and ranks full text (search_requests.py,
Searcher.run_embedding): the answer is the one a search with the vector in hand gives, a
request that fails on its own does not wait for the model, and the server-timing figures
still say how long the embedding took.

The model is the real all-MiniLM-L6-v2 behind FlakyModel's gate (it answers when the test
opens the gate): the only way to hold a real model's answer for as long as a test needs.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.domain.errors import CapabilityNotSupportedError, NotFoundError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService

from .flaky_model import FlakyModel
from .helpers import add, ref

Database = tuple[str, "str | Path"]

TEXTS = (
    "Release script publishing packages lives in tools/ship.sh.",
    "Integration tests need a local PostgreSQL listening on port 5433.",
    "Prefer small pull requests with one concern each.",
    "The staging deploy runs every night from the release branch.",
)
QUERIES = ("how do we ship a release?", "database for the tests", "pull request size")
HELD = 0.2  # seconds the gate stays closed in the timing test


async def _memory(service: MemoryService) -> ArtifactRef:
    return ref(await service.remember(None, [], [], [add(t) for t in TEXTS]))


async def _with_vector_in_hand(
    service: MemoryService, memory: ArtifactRef, query: str, mode: SearchMode
) -> list[tuple[str, float, tuple[str, ...]]]:
    """The same search with the query's vector computed first (Searcher.run, as before)."""
    vector, problem = await service.searches.query_vectors.for_query(query, mode)
    async with service.backend.read() as session:
        hits, _ = await service.searcher.run(session, [memory], query, 10, mode, vector, problem)
    return [(h.entry_id, h.score, tuple(h.matched_by)) for h in hits]


@pytest.mark.parametrize("mode", [SearchMode.HYBRID, SearchMode.AUTO, SearchMode.VECTOR])
async def test_the_answer_is_the_one_with_the_vector_in_hand(
    vservice: MemoryService, mode: SearchMode
) -> None:
    memory = await _memory(vservice)
    for query in QUERIES:
        found = await vservice.search(query, [memory], 10, mode)
        assert found.mode is (SearchMode.VECTOR if mode is SearchMode.VECTOR else SearchMode.HYBRID)
        got = [(h.entry_id, h.score, tuple(h.matched_by)) for h in found.hits]
        assert got, query
        assert got == await _with_vector_in_hand(vservice, memory, query, mode)


async def test_full_text_ranks_while_the_model_has_not_answered(
    vservice: MemoryService, flaky: FlakyModel
) -> None:
    memory = await _memory(vservice)
    flaky.gate = asyncio.Event()
    search = asyncio.create_task(vservice.search("ship a release", [memory], 10, SearchMode.HYBRID))
    while flaky.waiting == 0:  # the query is at the model
        await asyncio.sleep(0.005)
    await asyncio.sleep(HELD)
    assert not search.done()  # hybrid needs the vector: it waits for it
    started = time.perf_counter()
    flaky.gate.set()
    found = await search
    assert {"fts", "vector"} <= {c for h in found.hits for c in h.matched_by}
    assert found.embed_ms >= HELD * 1000  # the embedding's own time, gate included
    # Full text was ranked while the gate was closed: what remains after it opens is the
    # vector channel, fusion and verification, far less than the time the gate was held.
    assert (time.perf_counter() - started) * 1000 < found.embed_ms


async def test_a_search_that_fails_does_not_wait_for_the_model(
    vservice: MemoryService, flaky: FlakyModel
) -> None:
    await _memory(vservice)
    before = flaky.calls  # the entries' own embeddings
    flaky.gate = asyncio.Event()  # never opened: the model would answer never
    missing = ArtifactRef("mem_art_" + "0" * 32, 0)
    with pytest.raises(NotFoundError):
        await asyncio.wait_for(vservice.search("ship", [missing], 10, SearchMode.HYBRID), 30)
    # The abandoned embedding is cancelled (before it reached the model, or at the gate): had
    # it been left running it would wait at the gate for good.
    await asyncio.sleep(HELD)
    assert flaky.waiting == 0
    assert flaky.cancelled == flaky.calls - before  # each query that reached it: cancelled


async def test_a_model_down_still_refuses_hybrid_and_auto_falls_back(
    vservice: MemoryService, flaky: FlakyModel
) -> None:
    memory = await _memory(vservice)
    flaky.down = True
    with pytest.raises(CapabilityNotSupportedError):
        await vservice.search("ship a release", [memory], 10, SearchMode.HYBRID)
    found = await vservice.search("ship a release", [memory], 10, SearchMode.AUTO)
    assert found.mode is SearchMode.FTS
    assert found.fallback_reason
    assert [h.matched_by for h in found.hits] == [("fts",)] * len(found.hits) != []
