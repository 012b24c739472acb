"""A source database with a varied history for the export/import tests, and a way to compare
two databases (everything an export carries, plus the projection derived from it)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from powercontext_memory.admin.export import export
from powercontext_memory.api import EntryInput, SearchMode
from powercontext_memory.app import open_service
from powercontext_memory.domain.models import ArtifactRef, Citation, EntryState
from powercontext_memory.memory import MemoryService

from .helpers import WorkedExample, add, put_source, ref, revise

# The memory created first gets the id that sorts last, so that a file in id order would put
# the citing memory before the one it cites: the export must order by citation instead.
CITED = "mem_art_second"
CITING = "mem_art_first"
QUERIES = ["make test", "release builds", "生成输出", "validation check"]


def counter_ids(artifacts: list[str]) -> Callable[[str], str]:
    counter = itertools.count(1)
    names = iter(artifacts)
    return lambda prefix: next(names) if prefix == "mem_art_" else f"{prefix}{next(counter):08d}"


@dataclass
class Source:
    path: Path
    cited: ArtifactRef  # head of CITED
    citing: ArtifactRef  # head of CITING


async def build(path: Path) -> Source:
    """CITED: add, revise, deactivate, reactivate, revise with a new source (5 revisions).
    CITING: cites CITED@2 as evidence, then 6 more revisions. Plus a source nobody cites."""
    service = await open_service(path, id_factory=counter_ids([CITED, CITING]))
    try:
        example = await WorkedExample().run(service)
        back = await service.reactivate(ref(example.r3), [example.site], "restored")
        later = await put_source(service, "later.md", "later notes on validation")
        cited = await service.remember(
            ref(back),
            [later],
            [],
            [
                revise(
                    example.validation_v2,
                    "validation: make test, then make check",
                    "preference",
                    (later,),
                )
            ],
        )
        evidence = ArtifactRef(CITED, 2)
        citing = await service.remember(
            None,
            [],
            [evidence],
            [EntryInput(None, "fact", "the team follows the validation rule", (), (evidence,))],
        )
        for i in range(6):
            citing = await service.remember(
                ref(citing), [], [], [add(f"note {i} about release builds")]
            )
        await put_source(service, "orphan.txt", "put but never cited")
        return Source(path, ref(cited), ref(citing))
    finally:
        await service.close()


async def export_file(database: Path | str, output: Path, memories: tuple[str, ...] = ()) -> Path:
    service = await open_service(database)
    try:
        with output.open("wb") as out:
            await export(service.backend, out, memories)
    finally:
        await service.close()
    return output


async def fingerprint(service: MemoryService) -> dict[str, Any]:
    """Every revision (hash, time), entry version, source and projection row, by memory."""
    out: dict[str, Any] = {"memories": {}, "sources": {}}
    async with service.backend.read() as session:
        tx = session.tx
        for artifact_id in await tx.artifact_ids():
            head = await session.head(artifact_id)
            out["memories"][artifact_id] = {
                "revisions": [
                    (c.ref.revision, c.content_hash, c.committed_at_ms)
                    for c in await session.changes(artifact_id, 1, head)
                ],
                "versions": sorted(
                    await tx.all_entry_version_rows(artifact_id), key=lambda r: r.entry_version_id
                ),
                "projection": sorted(
                    await tx.head_projection_rows(artifact_id), key=lambda r: r.entry_id
                ),
                "fts": sorted(await tx.fts_rows(artifact_id)),
            }
        for source_id in await tx.all_source_ids():
            source = await session.source(source_id)
            out["sources"][source_id] = (source.content_hash, source.created_at_ms)
    return out


async def citations_expand(service: MemoryService) -> int:
    """Expand a citation of every entry at every revision; returns how many were verified."""
    checked = 0
    async with service.backend.read() as session:
        ids = await session.tx.artifact_ids()
    for artifact_id in ids:
        head = (await service.get_memory(ArtifactRef(artifact_id, 0))).head_revision
        for revision in range(1, head + 1):
            view = await service.get_memory(ArtifactRef(artifact_id, revision))
            entries = view.revision.content.entries
            citations = [
                Citation(view.revision.ref, e.entry_id, e.entry_version_id) for e in entries
            ]
            for expanded, entry in zip(await service.expand(citations), entries, strict=True):
                assert expanded.version.entry_content_hash == entry.entry_content_hash
                assert expanded.version.content.content_hash() == entry.entry_content_hash
                assert (expanded.state is EntryState.ACTIVE) == (entry.state is EntryState.ACTIVE)
                checked += 1
    return checked


async def search_results(service: MemoryService) -> list[list[tuple[str, str, float]]]:
    memories = [(await service.get_memory(ArtifactRef(m, 0))).revision.ref for m in (CITED, CITING)]
    out = []
    for query in QUERIES:
        result = await service.search(query, memories, 10, SearchMode.FTS)
        out.append([(h.entry_id, h.entry_version_id, h.score) for h in result.hits])
    return out
