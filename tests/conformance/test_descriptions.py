"""Descriptions and tags of entry versions on each backend: written, hashed (v2), projected,
revised, verified, exported, and old databases (versions without descriptions, hash v1, and
tables without the new columns) upgraded on open and still verified unchanged."""

from __future__ import annotations

import io
import json
import secrets
import string
from pathlib import Path
from typing import Any

import pymysql
import pytest
import sqlean

from powercontext_memory.admin.export import export
from powercontext_memory.admin.importer import import_file
from powercontext_memory.api import EntryInput, SearchMode, WriteResult
from powercontext_memory.app import open_service
from powercontext_memory.domain import lifecycle
from powercontext_memory.domain.errors import InvalidArgumentError
from powercontext_memory.domain.lifecycle import EntryRef, OrganizeStep
from powercontext_memory.domain.models import (
    ArtifactRef,
    Citation,
    EntryContent,
    EntryVersion,
    Lineage,
)
from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .tamper import Tamper

LONG_TEXT = "Release  checklist:\n" + " ".join(f"step{i}" for i in range(60))


async def _expand(service: MemoryService, memory: ArtifactRef, ref: EntryRef) -> EntryVersion:
    [found] = await service.expand([Citation(memory, ref.entry_id, ref.entry_version_id)])
    return found.version


def _refs(result: WriteResult) -> list[EntryRef]:
    return [EntryRef(r.entry_id, r.entry_version_id) for r in result.results]


def _head_row(tamper: Tamper, entry_id: str) -> tuple[str, str | None, str]:
    where = "FROM memory_entry_heads WHERE entry_id = ?"
    return (
        tamper.scalar(f"SELECT kind {where}", (entry_id,)),
        tamper.scalar(f"SELECT description {where}", (entry_id,)),
        tamper.scalar(f"SELECT tags {where}", (entry_id,)),
    )


async def _problems(service: MemoryService) -> list[str]:
    return [str(p) for p in (await verify(service.backend)).problems]


async def _remember_v1(
    service: MemoryService, memory: ArtifactRef | None, *contents: EntryContent
) -> tuple[ArtifactRef, list[EntryRef]]:
    """Entries as a writer before descriptions stored them (no description: hash v1),
    committed through the planner and the backend, the way every write is."""
    async with service.backend.read() as session:
        base = await session.current(memory) if memory is not None else None
    plan = lifecycle.plan_remember(
        artifact_id=base.ref.artifact_id if base else lifecycle.random_id("mem_art_"),
        base=base,
        lineage=Lineage("remember"),
        inputs=[lifecycle.EntryInputSpec(None, c) for c in contents],
        predecessors={},
    )
    assert plan.commit is not None
    revision = await service.backend.commit(plan.commit)
    return revision.ref, [EntryRef(r.entry_id, r.entry_version_id) for r in plan.results]


# -- new versions ---------------------------------------------------------------------------------


async def test_remember_derives_a_missing_description_and_keeps_a_given_one(
    harness: Harness,
) -> None:
    service = harness.service
    assert service is not None
    result = await service.remember(
        None,
        [],
        [],
        [
            EntryInput(None, "fact", LONG_TEXT),
            EntryInput(None, "rule", "Use  make\ttest", description="  How we test  "),
            EntryInput(None, "fact", "Tagged", tags=["ops", " build ", "ops", "Build"]),
        ],
    )
    memory = result.memory
    assert memory is not None
    long_v, given_v, tagged_v = [await _expand(service, memory, r) for r in _refs(result)]
    expected = " ".join(LONG_TEXT.split())[:199] + "…"
    assert (long_v.content.description, long_v.content.tags) == (expected, ())
    assert len(long_v.content.description or "") == 200
    assert given_v.content.description == "How we test"
    assert given_v.content.text == "Use  make\ttest"  # the text itself is not collapsed
    assert tagged_v.content.description == "Tagged"
    assert tagged_v.content.tags == ("Build", "build", "ops")
    for version in (long_v, given_v, tagged_v):
        assert version.content.hash_version == 2
        assert version.entry_content_hash == version.content.content_hash()
    assert _head_row(harness.tamper, tagged_v.entry_id) == (
        "fact",
        "Tagged",
        "\x1fBuild\x1fbuild\x1fops\x1f",
    )
    assert _head_row(harness.tamper, given_v.entry_id) == ("rule", "How we test", "")
    assert await _problems(service) == []


async def test_a_given_description_is_searchable(service: MemoryService) -> None:
    result = await service.remember(
        None,
        [],
        [],
        [EntryInput(None, "fact", "The build uses hatchling", description="packaging zebra")],
    )
    assert result.memory is not None
    found = await service.search("zebra", [result.memory], 5, SearchMode.FTS)
    assert [h.entry_id for h in found.hits] == [result.results[0].entry_id]


@pytest.mark.parametrize(
    ("entry", "field", "reason"),
    [
        (
            EntryInput(None, "fact", "t", description="two\nlines"),
            "description",
            "DESCRIPTION_INVALID",
        ),
        (EntryInput(None, "fact", "t", description=" "), "description", "DESCRIPTION_INVALID"),
        (
            EntryInput(None, "fact", "t", description="x" * 201),
            "description",
            "DESCRIPTION_INVALID",
        ),
        (EntryInput(None, "fact", "t", tags=["ok", "a,b"]), "tags[1]", "TAGS_INVALID"),
        (EntryInput(None, "fact", "t", tags=["x" * 65]), "tags[0]", "TAGS_INVALID"),
        (EntryInput(None, "fact", "t", tags=[f"t{i}" for i in range(33)]), "tags", "TAGS_INVALID"),
    ],
)
async def test_an_invalid_description_or_tag_is_refused_naming_the_field(
    harness: Harness, entry: EntryInput, field: str, reason: str
) -> None:
    service = harness.service
    assert service is not None
    with pytest.raises(InvalidArgumentError) as caught:
        await service.remember(None, [], [], [EntryInput(None, "fact", "fine"), entry])
    assert caught.value.field == f"entries[1].{field}"
    assert caught.value.reason == reason
    assert harness.tamper.scalar("SELECT count(*) FROM memory_entry_versions") == 0


@pytest.mark.parametrize("where", ["description", "tags[0]"])
async def test_a_secret_in_a_description_or_tag_is_refused(harness: Harness, where: str) -> None:
    service = harness.service
    assert service is not None
    token = "gh" + "p_" + "".join(secrets.choice(string.ascii_letters) for _ in range(36))
    entry = (
        EntryInput(None, "fact", "t", description=f"push with {token}")
        if where == "description"
        else EntryInput(None, "fact", "t", tags=[token])
    )
    with pytest.raises(InvalidArgumentError) as caught:
        await service.remember(None, [], [], [entry])
    assert (caught.value.field, caught.value.reason) == (f"entries[0].{where}", "SECRET_DETECTED")
    assert token not in caught.value.message
    assert harness.tamper.cells_containing(token) == []


async def test_a_revision_replaces_the_tags_and_derives_from_the_new_text(
    harness: Harness,
) -> None:
    service = harness.service
    assert service is not None
    first = await service.remember(
        None, [], [], [EntryInput(None, "fact", "old text", description="custom", tags=["a", "b"])]
    )
    assert first.memory is not None
    [v1] = _refs(first)
    second = await service.remember(
        first.memory, [], [], [EntryInput(v1, "fact", "new   text", tags=["c"])]
    )
    assert second.memory is not None
    [v2] = _refs(second)
    revised = await _expand(service, second.memory, v2)
    assert (revised.content.description, revised.content.tags) == ("new text", ("c",))
    assert revised.previous_version_id == v1.entry_version_id
    assert _head_row(harness.tamper, v2.entry_id) == ("fact", "new text", "\x1fc\x1f")
    third = await service.remember(second.memory, [], [], [EntryInput(v2, "note", "new   text")])
    assert third.memory is not None
    [v3] = _refs(third)
    untagged = await _expand(service, third.memory, v3)
    assert (untagged.content.kind, untagged.content.tags) == ("note", ())
    assert _head_row(harness.tamper, v3.entry_id) == ("note", "new text", "")
    # the first version is still exactly what its citation names
    old = await _expand(service, first.memory, v1)
    assert (old.content.description, old.content.tags) == ("custom", ("a", "b"))
    assert await _problems(service) == []


# -- versions without a description (hash v1) ----------------------------------------------------


async def test_an_old_v1_entry_expands_without_description_and_verifies(
    harness: Harness,
) -> None:
    service = harness.service
    assert service is not None
    memory, [old] = await _remember_v1(service, None, EntryContent("fact", "written long ago"))
    version = await _expand(service, memory, old)
    assert (version.content.description, version.content.tags) == (None, ())
    assert version.content.hash_version == 1
    assert version.entry_content_hash == EntryContent("fact", "written long ago").content_hash()
    assert (
        harness.tamper.scalar(
            "SELECT count(*) FROM memory_entry_versions WHERE description IS NULL AND tags IS NULL"
        )
        == 1
    )
    assert _head_row(harness.tamper, old.entry_id) == ("fact", None, "")
    # new entries beside it are described; the old one stays as it is
    result = await service.remember(memory, [], [], [EntryInput(None, "fact", "written today")])
    assert result.memory is not None
    assert (await _expand(service, result.memory, old)).content.description is None
    assert await _problems(service) == []


async def test_organize_normalize_never_adds_a_description(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    unnormalized = EntryContent("fact", "Cafe\u0301 notes  ")  # NFD, trailing spaces
    memory, [old, _] = await _remember_v1(
        service, None, unnormalized, EntryContent("fact", "already fine")
    )
    described = await service.remember(
        memory, [], [], [EntryInput(None, "fact", "described", tags=["t"])]
    )
    assert described.memory is not None
    result = await service.organize(described.memory, [OrganizeStep.NORMALIZE])
    assert result.memory is not None
    assert [c.entry_id for c in result.changes] == [old.entry_id]  # only the unnormalized one
    [row] = [r for r in (await service.get_memory(result.memory)).revision.content.entries
             if r.entry_id == old.entry_id]  # fmt: skip
    normalized = await _expand(service, result.memory, EntryRef(row.entry_id, row.entry_version_id))
    assert normalized.content.text == "Café notes"
    assert (normalized.content.description, normalized.content.hash_version) == (None, 1)
    assert await _problems(service) == []


# -- upgrade on open -----------------------------------------------------------------------------

_NEW_COLUMNS = (
    ("memory_entry_versions", "description"),
    ("memory_entry_versions", "tags"),
    ("memory_entry_heads", "kind"),
    ("memory_entry_heads", "description"),
    ("memory_entry_heads", "tags"),
)


def _to_old_layout(tamper: Tamper) -> None:
    """The tables as a server before descriptions created them."""
    for table, column in _NEW_COLUMNS:
        tamper.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    key = "key" if tamper.backend == "sqlite" else "meta_key"
    tamper.execute(f"DELETE FROM schema_meta WHERE {key} = 'head_metadata'")


async def test_an_old_database_is_upgraded_on_open(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    memory, [a, b] = await _remember_v1(
        service, None, EntryContent("rule", "always rebase"), EntryContent("fact", "uses make")
    )
    await service.close()
    _to_old_layout(harness.tamper)
    with pytest.raises((sqlean.OperationalError, pymysql.err.OperationalError)):
        harness.tamper.scalar("SELECT kind FROM memory_entry_heads")

    service = await harness.open()
    assert _head_row(harness.tamper, a.entry_id) == ("rule", None, "")  # kind backfilled
    assert _head_row(harness.tamper, b.entry_id) == ("fact", None, "")
    assert (await _expand(service, memory, a)).content.description is None
    assert await _problems(service) == []
    result = await service.remember(
        memory, [], [], [EntryInput(a, "rule", "always rebase first", tags=["git"])]
    )
    assert result.memory is not None
    [revised] = _refs(result)
    assert _head_row(harness.tamper, a.entry_id) == ("rule", "always rebase first", "\x1fgit\x1f")
    await service.close()

    service = await harness.open()  # a second open changes nothing
    assert _head_row(harness.tamper, b.entry_id) == ("fact", None, "")
    assert (await _expand(service, result.memory, revised)).content.tags == ("git",)
    assert await _problems(service) == []


# -- verifier --------------------------------------------------------------------------------------


async def _described_entry(service: MemoryService) -> tuple[ArtifactRef, EntryVersion]:
    result = await service.remember(
        None, [], [], [EntryInput(None, "fact", "text", description="about it", tags=["a", "b"])]
    )
    assert result.memory is not None
    [ref] = _refs(result)
    return result.memory, await _expand(service, result.memory, ref)


def _self_consistent(tamper: Tamper, version: EntryVersion, content: EntryContent) -> None:
    """Rewrite a version's description/tags and its own hash so that only the rules (and the
    manifest, which still names the old hash) can tell."""
    tamper.execute(
        "UPDATE memory_entry_versions SET description = ?, tags = ?, entry_content_hash = ? "
        "WHERE entry_version_id = ?",
        (
            content.description,
            json.dumps(list(content.tags), ensure_ascii=False, separators=(",", ":")),
            content.content_hash(),
            version.entry_version_id,
        ),
    )


async def test_the_verifier_reports_a_changed_description(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    _, version = await _described_entry(service)
    harness.tamper.execute(
        "UPDATE memory_entry_versions SET description = 'edited' WHERE entry_version_id = ?",
        (version.entry_version_id,),
    )
    problems = await _problems(service)
    row = f"memory_entry_versions[{version.entry_version_id}]"
    assert any(p.startswith(row) and "entry_content_hash" in p for p in problems), problems


@pytest.mark.parametrize(
    ("description", "tags", "detail"),
    [
        ("two\nlines", ("a", "b"), "description must be one line"),
        ("x" * 201, ("a", "b"), "description is 201 code points"),
        ("about it", ("b", "a"), "tags: tags are not sorted and distinct"),
        ("about it", ("a", "a,b"), "tags: tag 'a,b' must not contain ','"),
    ],
)
async def test_the_verifier_reports_a_description_or_tags_breaking_the_rules(
    harness: Harness, description: str, tags: tuple[str, ...], detail: str
) -> None:
    service = harness.service
    assert service is not None
    _, version = await _described_entry(service)
    content = version.content
    forged = EntryContent(
        content.kind, content.text, content.source_refs, content.artifact_refs, description, tags
    )
    _self_consistent(harness.tamper, version, forged)
    problems = await _problems(service)
    row = f"memory_entry_versions[{version.entry_version_id}]"
    assert any(p.startswith(row) and detail in p for p in problems), problems


async def test_the_verifier_reports_tags_stored_on_a_v1_version(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    _, [old] = await _remember_v1(service, None, EntryContent("fact", "old"))
    harness.tamper.execute(
        "UPDATE memory_entry_versions SET tags = '[]' WHERE entry_version_id = ?",
        (old.entry_version_id,),
    )
    problems = await _problems(service)
    row = f"memory_entry_versions[{old.entry_version_id}]"
    assert any(p.startswith(row) and "without a description" in p for p in problems), problems


async def test_the_verifier_reports_projected_tags_that_differ(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    memory, version = await _described_entry(service)
    harness.tamper.execute(
        "UPDATE memory_entry_heads SET tags = ? WHERE entry_id = ?",
        ("\x1fa\x1f", version.entry_id),
    )
    problems = await _problems(service)
    row = f"memory_entry_heads[{memory.artifact_id}/{version.entry_id}]"
    assert any(p.startswith(row) for p in problems), problems
    assert await service.backend.rebuild_projection(memory.artifact_id) == 1
    assert await _problems(service) == []


# -- export / import -------------------------------------------------------------------------------


async def _exported(service: MemoryService) -> list[dict[str, Any]]:
    out = io.BytesIO()
    await export(service.backend, out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


async def test_export_carries_descriptions_and_tags_and_import_keeps_them(
    service: MemoryService, tmp_path: Path
) -> None:
    memory, [old] = await _remember_v1(service, None, EntryContent("fact", "old"))
    result = await service.remember(
        memory, [], [], [EntryInput(None, "fact", "new", description="the new one", tags=["x"])]
    )
    assert result.memory is not None
    [new] = _refs(result)
    records = await _exported(service)
    contents = {
        r["entry_version_id"]: r["content"] for r in records if r["record"] == "entry_version"
    }
    # a version without a description exports exactly as before descriptions existed
    assert set(contents[old.entry_version_id]) == {"artifact_refs", "kind", "source_refs", "text"}
    assert contents[new.entry_version_id]["description"] == "the new one"
    assert contents[new.entry_version_id]["tags"] == ["x"]

    file = tmp_path / "export.jsonl"
    out = io.BytesIO()
    await export(service.backend, out)
    file.write_bytes(out.getvalue())
    target = await open_service(tmp_path / "target.sqlite3")
    try:
        await import_file(target, file)
        assert (await _expand(target, result.memory, old)).content.description is None
        imported = await _expand(target, result.memory, new)
        assert (imported.content.description, imported.content.tags) == ("the new one", ("x",))
        assert (await verify(target.backend)).ok
        reexported = await _exported(target)
        assert reexported[1:-1] == records[1:-1]  # same records, header time aside
    finally:
        await target.close()
