"""Search kind/tag filters and min_score on each backend: filters apply inside each channel's
candidate query before the limit (full text on both engines, vectors by the NumPy mask on
SQLite and the engine's own index on OceanBase), hits carry description and tags, and bad
filter values are refused with their field."""

from __future__ import annotations

import math
import unicodedata
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from powercontext_memory.api import NO_FILTER, EntryFilter, EntryInput, SearchMode, TagMatch
from powercontext_memory.app import open_service
from powercontext_memory.domain import fts_rank, fusion
from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.memory import MemoryService

from .flaky_model import FlakyModel
from .helpers import ref

Database = tuple[str, "str | Path"]

# Many short entries saying "deploy" twice outrank the one long entry saying it once, so the
# kind-B entry is beyond the full-text window of an unfiltered search (checked below).
MANY = 200
STRONG = "deploy deploy the service number {i}"
WEAK = (
    "Notes on release process, changelog wording, version bumps, tagging, signing, "
    "artifact upload and, at the very end, how we deploy"
)


async def _memory(service: MemoryService, entries: list[EntryInput]) -> ArtifactRef:
    return ref(await service.remember(None, [], [], entries))


def _strong(i: int) -> EntryInput:
    return EntryInput(None, "howto", STRONG.format(i=i), tags=("ops",))


def _weak() -> EntryInput:
    return EntryInput(None, "rule", WEAK, description="release notes", tags=("Café", "release"))


async def test_fts_filters_apply_before_the_limit(service: MemoryService) -> None:
    assert fts_rank.WINDOW_FACTOR * fusion.candidate_pool_size(5) < MANY
    memory = await _memory(service, [*(_strong(i) for i in range(MANY)), _weak()])
    unfiltered = await service.search("deploy", [memory], 5, SearchMode.FTS)
    assert WEAK not in [h.text for h in unfiltered.hits]

    [hit] = (
        await service.search(
            "deploy", [memory], 5, SearchMode.FTS, filters=EntryFilter(kinds=("rule",))
        )
    ).hits
    assert (hit.text, hit.kind, hit.description, hit.tags) == (
        WEAK,
        "rule",
        "release notes",
        ("Café", "release"),
    )
    by_tag = await service.search(
        "deploy", [memory], 5, SearchMode.FTS, filters=EntryFilter(tags=("release", "Café"))
    )
    assert [h.text for h in by_tag.hits] == [WEAK]
    any_tag = await service.search(
        "deploy",
        [memory],
        5,
        SearchMode.FTS,
        filters=EntryFilter(tags=("release", "absent"), tag_match=TagMatch.ANY),
    )
    assert [h.text for h in any_tag.hits] == [WEAK]
    all_tags = await service.search(
        "deploy", [memory], 5, SearchMode.FTS, filters=EntryFilter(tags=("release", "absent"))
    )
    assert all_tags.hits == []
    decomposed = unicodedata.normalize("NFD", "Café")
    assert (
        await service.search(
            "deploy", [memory], 5, SearchMode.FTS, filters=EntryFilter(tags=(decomposed,))
        )
    ).hits == [], "filter values are compared exactly as given"
    both = await service.search(
        "deploy", [memory], 5, SearchMode.FTS, filters=EntryFilter(kinds=("rule", "howto"))
    )
    assert len(both.hits) == 5 and all(h.tags == ("ops",) for h in both.hits)
    again = await service.search("deploy", [memory], 5, SearchMode.FTS)
    assert [h.text for h in again.hits] == [h.text for h in unfiltered.hits], (
        "the answer cache keeps filtered and unfiltered answers apart"
    )


async def test_min_score(service: MemoryService) -> None:
    memory = await _memory(service, [_strong(i) for i in range(3)])
    everything = await service.search("deploy", [memory], 8, SearchMode.FTS, min_score=0.0)
    assert len(everything.hits) == 3
    scores = sorted(h.score for h in everything.hits)
    cut = await service.search("deploy", [memory], 8, SearchMode.FTS, min_score=scores[1])
    assert sorted(h.score for h in cut.hits) == scores[1:]
    none = await service.search("deploy", [memory], 8, SearchMode.FTS, min_score=scores[-1] + 1)
    assert none.hits == []
    for bad in (-0.1, math.nan, math.inf):
        with pytest.raises(InvalidArgumentError) as error:
            await service.search("deploy", [memory], 8, SearchMode.FTS, min_score=bad)
        assert error.value.field == "min_score"


@pytest.mark.parametrize(
    ("filters", "field"),
    [
        (EntryFilter(kinds=tuple(f"k{i}" for i in range(33))), "kinds"),
        (EntryFilter(tags=tuple(f"t{i}" for i in range(33))), "tags"),
        (EntryFilter(kinds=("ok", "")), "kinds[1]"),
        (EntryFilter(kinds=("k" * 129,)), "kinds[0]"),
        (EntryFilter(tags=("t" * 65,)), "tags[0]"),
        (EntryFilter(tags=("a\x1fb",)), "tags[0]"),
    ],
)
async def test_filter_values_are_checked(
    service: MemoryService, filters: EntryFilter, field: str
) -> None:
    memory = await _memory(service, [_strong(0)])
    with pytest.raises(InvalidArgumentError) as error:
        await service.search("deploy", [memory], 8, SearchMode.FTS, filters=filters)
    assert (error.value.field, error.value.reason) == (field, "FILTER_INVALID")
    assert (await service.search("deploy", [memory], 8, SearchMode.FTS, filters=NO_FILTER)).hits


# -- vector and hybrid (real MiniLM: the NumPy channel on SQLite, the HNSW index on OceanBase) --

NEAR = "How do I deploy the web service to production servers number {i}?"
FAR = "Production deployment steps are written down in the operations handbook."
QUERY = "deploy the web service to production"
VECTOR_MANY = 40


@pytest.fixture
async def vservice(database: Database, minilm: MiniLMEmbedder) -> AsyncIterator[MemoryService]:
    # The wrapper keeps the session's model open when the service closes.
    service = await open_service(database[1], embedding=FlakyModel(minilm))
    yield service
    await service.close()


@pytest.mark.parametrize("hnsw_walk", [False, True], ids=["exact", "hnsw-walk"])
@pytest.mark.parametrize("mode", [SearchMode.VECTOR, SearchMode.HYBRID])
async def test_vector_filters_apply_before_the_limit(
    database: Database,
    vservice: MemoryService,
    mode: SearchMode,
    hnsw_walk: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On OceanBase both query paths: every row measured, or (hnsw-walk) the HNSW graph walked
    with the filter beside it. SQLite has one path (the NumPy mask)."""
    if hnsw_walk:
        if database[0] != "oceanbase":
            pytest.skip("only OceanBase has an HNSW path")
        from powercontext_memory.backends.oceanbase import vectors as oceanbase

        monkeypatch.setattr(oceanbase, "EXACT_VECTOR_ROWS", 0)
    assert fusion.candidate_pool_size(1) < VECTOR_MANY
    memory = await _memory(
        vservice,
        [
            *(
                EntryInput(None, "howto", NEAR.format(i=i), tags=("ops",))
                for i in range(VECTOR_MANY)
            ),
            EntryInput(None, "rule", FAR, tags=("handbook",)),
        ],
    )
    unfiltered = await vservice.search(QUERY, [memory], 1, mode)
    assert unfiltered.mode is mode and [h.text for h in unfiltered.hits] != [FAR]
    by_kind = await vservice.search(QUERY, [memory], 1, mode, filters=EntryFilter(kinds=("rule",)))
    assert by_kind.mode is mode
    assert [(h.text, h.tags) for h in by_kind.hits] == [(FAR, ("handbook",))]
    assert "vector" in by_kind.hits[0].matched_by
    by_tag = await vservice.search(
        QUERY, [memory], 3, mode, filters=EntryFilter(tags=("handbook",))
    )
    assert [h.text for h in by_tag.hits] == [FAR]
    nothing = await vservice.search(
        QUERY, [memory], 3, mode, filters=EntryFilter(kinds=("absent",))
    )
    assert nothing.hits == []
