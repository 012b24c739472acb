"""The full-text channel's in-process index (search/text_index.py) on every backend: it answers
what the engine's window answers whenever every match fits in the window, and beyond it
exactly the domain's BM25 over every match; it follows this process's commits and other
processes' commits; a memory too large for it is searched by the engine."""

from __future__ import annotations

import random

from powercontext_memory.api import SearchMode
from powercontext_memory.domain import analyzer, fts_rank, fusion
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService

from .conftest import Harness
from .helpers import add, create, entry_ref, ref, revise

WORDS = ["alpha", "beta", "gamma", "delta", "release", "build", "docs", "cache", "构建", "文档"]
QUERIES = ["alpha", "alpha beta", "release build docs", "gamma delta cache alpha", "构建文档"]


def corpus(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(1, 8))) + f" n{i}" for i in range(n)]


async def answers(
    service: MemoryService, memory: ArtifactRef, limit: int = 8
) -> list[list[tuple[str, str, float]]]:
    out = []
    for query in QUERIES:
        result = await service.search(query, [memory], limit, SearchMode.FTS)
        out.append([(h.entry_id, h.entry_version_id, h.score) for h in result.hits])
    return out


def engine_only(service: MemoryService) -> None:
    service.indexes.texts.max_postings = 0  # the engine's full-text query (its window)
    service.indexes.texts.forget()
    service.searcher.answers.clear()


async def test_index_answers_what_the_engine_window_answers(service: MemoryService) -> None:
    created = await create(service, *corpus(40))  # every match fits in the 128-row window
    indexed = await answers(service, ref(created))
    assert service.indexes.texts.held() > 0  # the index answered
    engine_only(service)
    assert await answers(service, ref(created)) == indexed
    assert any(indexed)


async def test_beyond_the_window_the_index_ranks_every_match(service: MemoryService) -> None:
    created = await create(service, *corpus(400))  # "alpha" alone matches about half
    memory = ref(created)
    async with service.backend.read() as session:
        rows = await session.tx.head_text_rows(memory.artifact_id, None)
    window = [
        (fusion.HitKey(r.memory_artifact_id, r.entry_id, r.entry_version_id), r.searchable_text)
        for r in rows
    ]
    for query in QUERIES:
        terms = list(dict.fromkeys(analyzer.query_terms(query)))
        expected = [k.entry_id for k in fts_rank.admit_and_order(terms, window, 32)][:8]
        result = await service.search(query, [memory], 8, SearchMode.FTS)
        assert [h.entry_id for h in result.hits] == expected, query


async def test_the_index_follows_this_process_commits(service: MemoryService) -> None:
    created = await create(service, "alpha one", "beta two", "gamma three")
    memory = ref(created)
    assert await answers(service, memory)  # loads the index at revision 1
    held = service.indexes.texts._memories[memory.artifact_id]
    revised = await service.remember(memory, [], [], [revise(entry_ref(created, 0), "delta one")])
    forgot = await service.forget(ref(revised), [entry_ref(created, 1)], None)
    added = await service.remember(ref(forgot), [], [], [add("alpha four")])
    assert held.revision == ref(added).revision  # followed without a read
    hits = (await service.search("alpha", [ref(added)], 8, SearchMode.FTS)).hits
    assert [h.text for h in hits] == ["alpha four"]
    assert [h.text for h in (await service.search("delta", [ref(added)], 8, SearchMode.FTS)).hits]
    assert not (await service.search("beta", [ref(added)], 8, SearchMode.FTS)).hits


async def test_the_index_catches_up_with_another_process(
    harness: Harness, service: MemoryService
) -> None:
    other = await harness.open()  # a second server on the same database
    harness.service = service  # the fixture closes this one
    try:
        created = await create(service, "alpha one", "beta two", "gamma three")
        memory = ref(created)
        assert (await service.search("beta", [memory], 8, SearchMode.FTS)).hits
        revised = await other.remember(memory, [], [], [revise(entry_ref(created, 0), "zeta one")])
        forgot = await other.forget(ref(revised), [entry_ref(created, 1)], None)
        head = ref(await other.remember(ref(forgot), [], [], [add("omega four")]))
        search = service.search
        found = (await search("zeta omega", [head], 8, SearchMode.FTS)).hits
        assert sorted(h.text for h in found) == ["omega four", "zeta one"]
        assert not (await search("beta", [head], 8, SearchMode.FTS)).hits
        assert not (await search("alpha", [head], 8, SearchMode.FTS)).hits
        assert service.indexes.texts._memories[memory.artifact_id].revision == head.revision
    finally:
        await other.close()


async def test_a_memory_too_large_for_the_index_is_searched_by_the_engine(
    service: MemoryService,
) -> None:
    created = await create(service, *corpus(40))
    memory = ref(created)
    indexed = await answers(service, memory)
    service.indexes.texts.max_postings = 10
    service.indexes.texts.forget()
    service.searcher.answers.clear()
    assert await answers(service, memory) == indexed
    assert memory.artifact_id in service.indexes.texts._too_large
    assert service.indexes.texts.held() == 0
