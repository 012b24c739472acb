"""OceanBase full text filters by memory inside the index (encode_row in
backends/oceanbase/fts_tokens.py), and databases indexed before the memory token get it on open."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.backends.oceanbase.fts_tokens import memory_token
from powercontext_memory.backends.oceanbase.schema import FULLTEXT_LAYOUT_KEY
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.verifier import verify

from ..oceanbase_server import fresh_database
from .flaky_model import FlakyModel
from .helpers import add, create, ref
from .tamper import OceanBaseTamper

CROWD = 200  # more matching rows in the other memory than the engine's candidate window


@pytest.fixture
async def dsn(oceanbase_server: str) -> AsyncIterator[str]:
    async with fresh_database(oceanbase_server) as database:
        yield database


async def test_a_search_sees_its_memory_only_however_many_rows_match_elsewhere(dsn: str) -> None:
    """The crowd's rows rank higher (the term three times in a short text): without the
    memory filter in the index, they would fill the window and the quiet memory's own matches
    would never reach the caller."""
    service = await open_service(dsn)
    try:
        crowd = ref(
            await service.remember(
                None, [], [], [add(f"alpha alpha alpha {i}") for i in range(CROWD)]
            )
        )
        quiet = ref(
            await create(
                service,
                "alpha appears once in this rather long sentence about release planning",
                "another long note that mentions alpha next to build and deploy steps",
                "a note without the word at all",
            )
        )
        found = await service.search("alpha", [quiet], 8, SearchMode.FTS)
        assert len(found.hits) == 2
        assert {h.memory_ref.artifact_id for h in found.hits} == {quiet.artifact_id}
        crowded = await service.search("alpha", [crowd], 8, SearchMode.FTS)
        assert {h.memory_ref.artifact_id for h in crowded.hits} == {crowd.artifact_id}
    finally:
        await service.close()


async def test_rows_indexed_without_the_memory_token_get_it_on_open(dsn: str) -> None:
    service = await open_service(dsn)
    memory = ref(await create(service, "release checklist for the gateway", "deploy notes"))
    await service.close()
    tamper = OceanBaseTamper(dsn)
    token = memory_token(memory.artifact_id)
    # The layout before: fulltext_tokens held the text's tokens only.
    tamper.execute(
        "UPDATE memory_entry_heads SET fulltext_tokens = SUBSTRING(fulltext_tokens, ?)",
        (len(token) + 2,),
    )
    tamper.execute("DELETE FROM schema_meta WHERE meta_key = ?", (FULLTEXT_LAYOUT_KEY,))
    assert not tamper.scalar(
        "SELECT COUNT(*) FROM memory_entry_heads WHERE fulltext_tokens LIKE ?", (token + "%",)
    )
    service = await open_service(dsn)
    try:
        found = await service.search("checklist", [memory], 8, SearchMode.FTS)
        assert [h.memory_ref.artifact_id for h in found.hits] == [memory.artifact_id]
        report = await verify(service.backend)
        assert report.ok, report.problems
    finally:
        await service.close()
    assert (
        tamper.scalar(
            "SELECT COUNT(*) FROM memory_entry_heads WHERE fulltext_tokens LIKE ?", (token + " %",)
        )
        == 2
    )


async def test_the_verifier_reports_a_row_indexed_under_another_memory(dsn: str) -> None:
    service = await open_service(dsn)
    await create(service, "release checklist")
    tamper = OceanBaseTamper(dsn)
    tamper.execute(
        "UPDATE memory_entry_heads SET fulltext_tokens = ?",
        (memory_token("someone-else") + " w_release w_checklist",),
    )
    try:
        report = await verify(service.backend)
        assert any("indexed text differs" in p.detail for p in report.problems)
    finally:
        await service.close()


@pytest.mark.parametrize("exact_rows", [0, 2000], ids=["hnsw-walk", "exact-scan"])
async def test_vector_search_keeps_to_its_memory_on_both_paths(
    dsn: str, minilm: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch, exact_rows: int
) -> None:
    """Above EXACT_VECTOR_ROWS the engine walks the HNSW graph (index hint), below it measures
    every row of the memory; both find the memory's own nearest entry and nothing else."""
    from powercontext_memory.backends.oceanbase import vectors as oceanbase

    monkeypatch.setattr(oceanbase, "EXACT_VECTOR_ROWS", exact_rows)
    service = await open_service(dsn, embedding=FlakyModel(minilm))
    try:
        deploy = "Release script publishing packages lives in tools/ship.sh."
        other = ref(await create(service, deploy, "the cache is warmed at start"))
        memory = ref(await create(service, deploy, "lint runs before every commit"))
        found = await service.search(
            "Where is the program for shipping a new version?", [memory], 8, SearchMode.VECTOR
        )
        assert found.hits and found.hits[0].text == deploy
        assert {h.memory_ref.artifact_id for h in found.hits} == {memory.artifact_id}
        assert other.artifact_id != memory.artifact_id
    finally:
        await service.close()
