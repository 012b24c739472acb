"""The offline verifier finds every kind of tampering, and passes a clean database."""

from __future__ import annotations

import hashlib

import pytest

from powercontext_memory.memory import MemoryService
from powercontext_memory.verifier import verify

from .conftest import Harness
from .helpers import WorkedExample, ref


async def _problems(service: MemoryService) -> list[str]:
    report = await verify(service.backend)
    return [str(p) for p in report.problems]


async def test_clean_database_verifies(service: MemoryService) -> None:
    ex = await WorkedExample().run(service)
    await service.reactivate(ref(ex.r3), [ex.site], None)
    report = await verify(service.backend)
    assert report.ok, report.problems
    assert (report.memories, report.revisions, report.entry_versions, report.sources) == (
        1,
        4,
        4,
        5,
    )


# (name, statement, or {backend: statement} where the schemas differ, row the report names)
TAMPERING: list[tuple[str, str | dict[str, str], str]] = [
    (
        "entry text",
        "UPDATE memory_entry_versions SET text = concat(text, '!') WHERE version = 2",
        "memory_entry_versions[",
    ),
    (
        "entry hash and text together",
        "UPDATE memory_entry_versions SET kind = 'fact', entry_content_hash = '{hash}' "
        "WHERE version = 2",
        "artifact_revisions[",
    ),
    (
        "manifest piece",
        "UPDATE manifest_pieces SET body = replace(body, '\"inactive\"', '\"active\"')",
        "manifest_pieces[",
    ),
    ("missing manifest piece", "DELETE FROM manifest_pieces", "manifest_pieces["),
    (
        "revision content hash",
        f"UPDATE artifact_revisions SET content_hash = '{'0' * 64}' WHERE revision = 3",
        "artifact_revisions[",
    ),
    (
        "revision changes",
        "UPDATE artifact_revisions SET changes = replace(changes, 'deactivate', 'reactivate'), "
        "changes_hash = '{changes_hash}' WHERE revision = 3",
        "artifact_revisions[",
    ),
    (
        "missing projection row",
        {
            "sqlite": "DELETE FROM memory_entry_heads "
            "WHERE rowid = (SELECT min(rowid) FROM memory_entry_heads)",
            "oceanbase": "DELETE FROM memory_entry_heads ORDER BY projection_id LIMIT 1",
        },
        "memory_entry_heads[",
    ),
    (
        "projection of an inactive entry",
        {
            "sqlite": "INSERT INTO memory_entry_heads (memory_artifact_id, projected_in_revision, "
            "entry_id, entry_version_id, entry_content_hash, searchable_text) "
            "SELECT memory_artifact_id, 3, entry_id, entry_version_id, entry_content_hash, "
            "'site' FROM memory_entry_versions WHERE kind = 'constraint'",
            "oceanbase": "INSERT INTO memory_entry_heads (memory_artifact_id, "
            "projected_in_revision, entry_id, entry_version_id, entry_content_hash, "
            "searchable_text, fulltext_tokens) "
            "SELECT memory_artifact_id, 3, entry_id, entry_version_id, entry_content_hash, "
            "'site', 'w_site' FROM memory_entry_versions WHERE kind = 'constraint'",
        },
        "memory_entry_heads[",
    ),
    (
        "fts text",
        {
            "sqlite": "UPDATE memory_entry_search_fts SET searchable_text = 'x' WHERE rowid = "
            "(SELECT min(rowid) FROM memory_entry_search_fts)",
            "oceanbase": "UPDATE memory_entry_heads SET fulltext_tokens = 'w_x' "
            "ORDER BY projection_id LIMIT 1",
        },
        "memory_entry_search_fts[",
    ),
    (
        "source bytes",
        {
            "sqlite": "UPDATE sources SET content = X'00' WHERE rowid = 1",
            "oceanbase": "UPDATE sources SET content = X'00' ORDER BY source_id LIMIT 1",
        },
        "sources[",
    ),
    ("head pointer", "UPDATE artifact_heads SET revision = 2", "memory_entry_heads["),
]


@pytest.mark.parametrize(
    ("name", "statement", "expected_row"), TAMPERING, ids=[t[0] for t in TAMPERING]
)
async def test_tampering_is_reported_precisely(
    harness: Harness, name: str, statement: str | dict[str, str], expected_row: str
) -> None:
    service = harness.service
    assert service is not None
    sql = statement if isinstance(statement, str) else statement[harness.backend]
    await WorkedExample().run(service)
    if "{hash}" in sql:
        # Recompute a self-consistent row hash: only the manifest can catch this one.
        from powercontext_memory.backends.codec import version_from_row
        from powercontext_memory.backends.port import EntryVersionRow
        from powercontext_memory.domain.models import EntryContent

        row = EntryVersionRow(
            *[
                harness.tamper.scalar(f"SELECT {c} FROM memory_entry_versions WHERE version = 2")
                for c in EntryVersionRow.__dataclass_fields__
            ]
        )
        stored = version_from_row(row).content
        forged = EntryContent("fact", stored.text, stored.source_refs, stored.artifact_refs)
        sql = sql.format(hash=forged.content_hash())
    if "{changes_hash}" in sql:
        # Changes that match their own hash: only the revision's content hash can catch them.
        changes = harness.tamper.scalar("SELECT changes FROM artifact_revisions WHERE revision = 3")
        forged_changes = changes.replace("deactivate", "reactivate").encode()
        assert forged_changes != changes.encode()
        sql = sql.format(changes_hash=hashlib.sha256(forged_changes).hexdigest())
    harness.tamper.execute(sql)
    problems = await _problems(service)
    assert problems and any(p.startswith(expected_row) for p in problems), problems


async def test_rebuild_projection_repairs_it(harness: Harness) -> None:
    service = harness.service
    assert service is not None
    ex = await WorkedExample().run(service)
    harness.tamper.clear_fulltext()
    harness.tamper.execute("DELETE FROM memory_entry_heads")
    assert await _problems(service)
    rebuilt = await service.backend.rebuild_projection(ref(ex.r3).artifact_id)
    assert rebuilt == 2
    assert await _problems(service) == []
