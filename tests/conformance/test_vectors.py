"""Vector and hybrid search on the real all-MiniLM-L6-v2 model (docs/vectors.md rules).

The model is loaded once per test session. `FlakyModel` is a test double WRAPPING the real
model: it only injects what a real model cannot be made to do on demand (an outage, a NaN or
wrong-length vector, a different profile); every vector it returns otherwise is the real one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from powercontext_memory import admin
from powercontext_memory.api import SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.domain.errors import CapabilityNotSupportedError
from powercontext_memory.domain.lifecycle import EntryRef
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.memory import MemoryService
from powercontext_memory.search import vector_index

from .flaky_model import FlakyModel
from .helpers import add, entry_ref, ref
from .tamper import tamper_for

Database = tuple[str, "str | Path"]  # (backend, location) from the `database` fixture

DEPLOY = "Release script publishing packages lives in tools/ship.sh."
DATABASE = "Integration tests need a local PostgreSQL listening on port 5433."
STYLE = "Prefer small pull requests with one concern each."
# Shares no word with DEPLOY (checked below), says the same thing in other words.
PARAPHRASE = "Where is the program for putting out a new version?"
UNRELATED = "Bananas and mangoes are tropical fruit."


def _vector_rows(database: Database) -> int:
    return tamper_for(*database).vector_rows()


async def _memory(service: MemoryService, *texts: str) -> ArtifactRef:
    return ref(await service.remember(None, [], [], [add(t) for t in texts]))


def test_paraphrase_shares_no_word_with_its_target() -> None:
    from powercontext_memory.domain.analyzer import query_terms

    assert not set(query_terms(PARAPHRASE)) & set(query_terms(DEPLOY))


async def test_capabilities_report_the_fixed_profile(vservice: MemoryService) -> None:
    caps = vservice.capabilities()
    assert caps.vector and caps.hybrid and caps.embedding_profile is not None
    assert caps.embedding_profile.dimension == 384 and caps.embedding_profile.distance == "l2"


async def test_paraphrase_found_by_vector_and_hybrid_not_by_fts(
    vservice: MemoryService,
) -> None:
    memory = await _memory(vservice, DEPLOY, DATABASE, STYLE)
    fts = await vservice.search(PARAPHRASE, [memory], 8, SearchMode.FTS)
    assert DEPLOY not in [h.text for h in fts.hits]
    vector = await vservice.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)
    assert vector.mode is SearchMode.VECTOR and vector.hits[0].text == DEPLOY
    assert vector.hits[0].matched_by == ("vector",)
    hybrid = await vservice.search(PARAPHRASE, [memory], 8, SearchMode.HYBRID)
    assert hybrid.hits[0].text == DEPLOY and hybrid.mode is SearchMode.HYBRID
    auto = await vservice.search(PARAPHRASE, [memory], 8, SearchMode.AUTO)
    assert auto.mode is SearchMode.HYBRID and auto.fallback_reason == ""
    assert auto.hits[0].text == DEPLOY


async def test_hybrid_lists_only_admitting_channels(vservice: MemoryService) -> None:
    memory = await _memory(vservice, DEPLOY, DATABASE, STYLE)
    result = await vservice.search(
        "release script publishes packages", [memory], 8, SearchMode.HYBRID
    )
    top = result.hits[0]
    assert top.text == DEPLOY and top.matched_by == ("fts", "vector")
    assert len(top.channel_ranks) == 2 and min(top.channel_ranks) >= 1
    assert top.score == pytest.approx(2 / 61)


async def test_unrelated_query_is_refused_not_padded(vservice: MemoryService) -> None:
    memory = await _memory(vservice, DEPLOY, DATABASE, STYLE)
    result = await vservice.search(UNRELATED, [memory], 8, SearchMode.VECTOR)
    assert result.hits == []


async def test_model_outage_then_offline_rebuild(
    vservice: MemoryService, flaky: FlakyModel, database: Database
) -> None:
    memory = await _memory(vservice, DEPLOY, DATABASE)
    flaky.down = True
    result = await vservice.remember(memory, [], [], [add(STYLE)])
    assert result.changed  # the write commits with full text, without a vector
    memory = ref(result)
    assert _vector_rows(database) == 2
    flaky.down = False
    auto = await vservice.search("pull requests", [memory], 8, SearchMode.AUTO)
    assert auto.mode is SearchMode.FTS and "incomplete" in auto.fallback_reason
    assert auto.hits[0].text == STYLE
    with pytest.raises(CapabilityNotSupportedError):
        await vservice.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)
    report = await admin.rebuild(vservice)
    assert report.complete and report.embedded == 1 and report.kept == 2
    assert _vector_rows(database) == 3
    auto = await vservice.search(PARAPHRASE, [memory], 8, SearchMode.AUTO)
    assert auto.mode is SearchMode.HYBRID and auto.hits[0].text == DEPLOY


@pytest.mark.parametrize("corruption", ["nan", "dimension", "zero"])
async def test_bad_vectors_are_refused_and_never_stored(
    vservice: MemoryService, flaky: FlakyModel, database: Database, corruption: str
) -> None:
    flaky.corrupt = corruption
    memory = await _memory(vservice, DEPLOY)
    assert _vector_rows(database) == 0
    flaky.corrupt = None
    with pytest.raises(CapabilityNotSupportedError):
        await vservice.search(PARAPHRASE, [memory], 8, SearchMode.HYBRID)
    assert (await vservice.search("release script", [memory], 8, SearchMode.AUTO)).mode is (
        SearchMode.FTS
    )


async def test_deactivate_drops_and_reactivate_restores_the_vector(
    vservice: MemoryService, database: Database
) -> None:
    result = await vservice.remember(None, [], [], [add(DEPLOY), add(DATABASE)])
    deploy = entry_ref(result, 0)
    forgotten = await vservice.forget(ref(result), [deploy], None)
    assert _vector_rows(database) == 1
    hits = (await vservice.search(PARAPHRASE, [ref(forgotten)], 8, SearchMode.VECTOR)).hits
    assert DEPLOY not in [h.text for h in hits]
    restored = await vservice.reactivate(ref(forgotten), [deploy], None)
    assert _vector_rows(database) == 2
    hits = (await vservice.search(PARAPHRASE, [ref(restored)], 8, SearchMode.VECTOR)).hits
    assert hits[0].text == DEPLOY and hits[0].entry_version_id == deploy.entry_version_id


async def test_revised_entry_gets_a_new_vector(vservice: MemoryService) -> None:
    result = await vservice.remember(None, [], [], [add(DATABASE), add(STYLE)])
    revised = await vservice.remember(
        ref(result), [], [], [dataclasses.replace(add(DEPLOY), target=entry_ref(result, 0))]
    )
    hits = (await vservice.search(PARAPHRASE, [ref(revised)], 8, SearchMode.VECTOR)).hits
    assert hits[0].text == DEPLOY
    assert hits[0].entry_version_id == revised.results[0].entry_version_id


async def test_tampered_vector_metadata_makes_the_memory_incomplete(
    database: Database, flaky: FlakyModel
) -> None:
    path = database[1]
    service = await open_service(path, embedding=flaky)
    memory = await _memory(service, DEPLOY, DATABASE)
    await service.close()
    tamper_for(*database).set_one_embedding_hash("0" * 64)
    service = await open_service(path, embedding=flaky)
    try:
        auto = await service.search("release script", [memory], 8, SearchMode.AUTO)
        assert auto.mode is SearchMode.FTS and "incomplete" in auto.fallback_reason
        with pytest.raises(CapabilityNotSupportedError):
            await service.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)
    finally:
        await service.close()


async def test_vectors_first_loaded_in_pages_answer_like_one_read(
    database: Database, flaky: FlakyModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh server loads a memory's vectors page by page (each page one bounded database
    call); with pages of 2 rows every row still arrives once and one bad row still counts."""
    monkeypatch.setattr(vector_index, "LOAD_PAGE_ROWS", 2)
    path = database[1]
    writer = await open_service(path, embedding=flaky)
    texts = [DATABASE, STYLE, DEPLOY, UNRELATED, "Run the linters before every push."]
    memory = await _memory(writer, *texts)
    await writer.close()
    reader = await open_service(path, embedding=flaky)
    try:
        hits = (await reader.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)).hits
        assert hits[0].text == DEPLOY
        session_vectors = reader.indexes.vectors
        assert session_vectors is not None
        loaded = session_vectors._memories[memory.artifact_id]
        assert loaded.complete and len(loaded.invalid) == 0
        assert session_vectors.store_vectors is False or len(loaded.slots) == len(texts)
    finally:
        await reader.close()
    tamper_for(*database).set_one_embedding_hash("0" * 64)
    reader = await open_service(path, embedding=flaky)
    try:
        with pytest.raises(CapabilityNotSupportedError):
            await reader.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)
    finally:
        await reader.close()


async def test_profile_mismatch_on_reopen_disables_vectors_and_keeps_them(
    database: Database, minilm: MiniLMEmbedder
) -> None:
    path = database[1]
    service = await open_service(path, embedding=FlakyModel(minilm))
    memory = await _memory(service, DEPLOY, DATABASE)
    await service.close()
    other = dataclasses.replace(minilm.profile, profile_id="another-model", normalization="none")
    service = await open_service(path, embedding=FlakyModel(minilm, other))
    try:
        caps = service.capabilities()
        assert not caps.vector and "differs" in caps.vector_unavailable_reason
        assert caps.embedding_profile == minilm.profile  # the database's own profile
        auto = await service.search("release script", [memory], 8, SearchMode.AUTO)
        assert auto.mode is SearchMode.FTS and "differs" in auto.fallback_reason
        with pytest.raises(CapabilityNotSupportedError):
            await service.search(PARAPHRASE, [memory], 8, SearchMode.HYBRID)
        # Writes under the wrong profile store no vectors; stored ones are untouched.
        await service.remember(memory, [], [], [add(STYLE)])
        assert _vector_rows(database) == 2
        report = await admin.migrate(service)
        assert report.complete and report.embedded == 3
        assert service.capabilities().vector
    finally:
        await service.close()


async def test_no_model_means_fts_only_with_reason(database: Database) -> None:
    service = await open_service(database[1])
    try:
        memory = await _memory(service, DEPLOY)
        auto = await service.search("release script", [memory], 8, SearchMode.AUTO)
        assert auto.mode is SearchMode.FTS and "no embedding model" in auto.fallback_reason
        assert not service.capabilities().vector
    finally:
        await service.close()


async def test_commits_by_another_process_reach_the_vector_channel(
    database: Database, flaky: FlakyModel
) -> None:
    path = database[1]
    reader = await open_service(path, embedding=flaky)
    writer = await open_service(path, embedding=flaky)  # stands for a second server
    try:
        memory = await _memory(writer, DATABASE, STYLE)
        before = await reader.search(PARAPHRASE, [memory], 8, SearchMode.VECTOR)
        assert DEPLOY not in [h.text for h in before.hits]
        newer = ref(await writer.remember(memory, [], [], [add(DEPLOY)]))
        after = await reader.search(PARAPHRASE, [newer], 8, SearchMode.VECTOR)
        assert after.hits[0].text == DEPLOY
        hit = after.hits[0]
        gone = ref(await writer.forget(newer, [EntryRef(hit.entry_id, hit.entry_version_id)], None))
        final = await reader.search(PARAPHRASE, [gone], 8, SearchMode.VECTOR)
        assert DEPLOY not in [h.text for h in final.hits]
    finally:
        await reader.close()
        await writer.close()


async def test_verifier_reports_tampered_vectors_and_counts_missing_ones(
    database: Database, flaky: FlakyModel
) -> None:
    from powercontext_memory.verifier import verify

    path = database[1]
    service = await open_service(path, embedding=flaky)
    try:
        memory = await _memory(service, DEPLOY, DATABASE)
        flaky.down = True
        await service.remember(memory, [], [], [add(STYLE)])
        report = await verify(service.backend)
        assert report.ok and report.missing_vectors == 1
        tamper_for(*database).set_one_embedding_hash("f" * 64)
        report = await verify(service.backend)
        assert [p.row.split("[")[0] for p in report.problems] == ["memory_entry_vector_metadata"]
    finally:
        await service.close()
