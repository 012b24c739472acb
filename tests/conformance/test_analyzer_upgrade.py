"""A database indexed by analyzer v1 (words as written) is indexed again by v2 (English stems)
when it is opened: its full text then finds other forms of a word, and nothing else changes."""

from __future__ import annotations

import pytest

from powercontext_memory.api import EntryInput, SearchMode
from powercontext_memory.backends.oceanbase.fts_tokens import encode_row
from powercontext_memory.domain.analyzer import ANALYZER_VERSION
from powercontext_memory.domain.models import ArtifactRef
from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .tamper import Tamper

TEXTS = ("Maria painted the lakes near Portland", "Tom runs the release checklist")
# What analyzer v1 stored for TEXTS: the words as written, lowercased.
V1_TEXTS = ("maria painted the lakes near portland", "tom runs the release checklist")
V2_TEXTS = ("maria paint the lake near portland", "tom run the releas checklist")


def _meta_columns(tamper: Tamper) -> tuple[str, str]:
    return ("key", "value") if tamper.backend == "sqlite" else ("meta_key", "meta_value")


def _analyzer(tamper: Tamper) -> str:
    key, value = _meta_columns(tamper)
    return str(tamper.scalar(f"SELECT {value} FROM schema_meta WHERE {key} = 'analyzer'"))


def _index_as(tamper: Tamper, memory: ArtifactRef, entry_ids: list[str], version: str) -> None:
    """Rewrite the stored full text of each entry to `V1_TEXTS`, and the version to `version`,
    as a server with analyzer v1 left them."""
    for entry_id, text in zip(entry_ids, V1_TEXTS, strict=True):
        tamper.execute(
            "UPDATE memory_entry_heads SET searchable_text = ? WHERE entry_id = ?", (text, entry_id)
        )
        if tamper.backend == "sqlite":
            tamper.execute(
                "UPDATE memory_entry_search_fts SET searchable_text = ? WHERE rowid = "
                "(SELECT projection_id FROM memory_entry_heads WHERE entry_id = ?)",
                (text, entry_id),
            )
        else:
            tamper.execute(
                "UPDATE memory_entry_heads SET fulltext_tokens = ? WHERE entry_id = ?",
                (encode_row(memory.artifact_id, text), entry_id),
            )
    key, value = _meta_columns(tamper)
    tamper.execute(f"UPDATE schema_meta SET {value} = ? WHERE {key} = 'analyzer'", (version,))


def _stored_texts(tamper: Tamper, entry_ids: list[str]) -> list[str]:
    return [
        str(
            tamper.scalar("SELECT searchable_text FROM memory_entry_heads WHERE entry_id = ?", (e,))
        )
        for e in entry_ids
    ]


async def _found(service: MemoryService, memory: ArtifactRef, query: str) -> list[str]:
    return [h.entry_id for h in (await service.search(query, [memory], 5, SearchMode.FTS)).hits]


async def _written(harness: Harness) -> tuple[ArtifactRef, list[str]]:
    service = harness.service
    assert service is not None
    result = await service.remember(
        None, [], [], [EntryInput(None, "fact", text) for text in TEXTS]
    )
    assert result.memory is not None
    entry_ids = [r.entry_id for r in result.results]
    assert _stored_texts(harness.tamper, entry_ids) == list(V2_TEXTS)
    await service.close()
    return result.memory, entry_ids


async def test_a_database_indexed_by_v1_is_indexed_again_on_open(harness: Harness) -> None:
    memory, entry_ids = await _written(harness)
    _index_as(harness.tamper, memory, entry_ids, "v1")

    service = await harness.open()
    assert _analyzer(harness.tamper) == ANALYZER_VERSION == "v2"
    assert _stored_texts(harness.tamper, entry_ids) == list(V2_TEXTS)
    assert await _found(service, memory, "who paints lakes?") == entry_ids[:1]
    assert await _found(service, memory, "running a release") == entry_ids[1:]
    assert (await verify(service.backend)).problems == []
    await service.close()

    service = await harness.open()  # a second open finds it done
    assert _stored_texts(harness.tamper, entry_ids) == list(V2_TEXTS)
    assert await _found(service, memory, "painting") == entry_ids[:1]


async def test_an_unknown_analyzer_is_refused(harness: Harness) -> None:
    memory, entry_ids = await _written(harness)
    _index_as(harness.tamper, memory, entry_ids, "v9")
    with pytest.raises(RuntimeError, match="database analyzer is 'v9', this server needs 'v2'"):
        await harness.open()
    assert _analyzer(harness.tamper) == "v9"  # left as it was
    assert _stored_texts(harness.tamper, entry_ids) == list(V1_TEXTS)

    _index_as(harness.tamper, memory, entry_ids, "v1")  # what it really was: opened again
    service = await harness.open()
    assert await _found(service, memory, "paintings") == entry_ids[:1]
