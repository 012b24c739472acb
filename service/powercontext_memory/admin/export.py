"""`powercontext-memory export`: memories to a portable, self-verifying file (export_format.py).

Safe on a live database: the heads are read once, at the start, and each memory is exported up
to that head. Revisions, entry versions and sources never change once written, so reading them
later, in short transactions (no snapshot held for the whole export), gives the same answer.
Everything is verified as it is read (hashes by the codec, every manifest by replaying the
changes), so a damaged database fails the export naming the row, instead of producing a file
that only fails on import. A memory's labels (every version) are read when its last revision
has been written: a label set meanwhile is in the file if it was stored by then.

Not exported: access tokens and idempotency records (they belong to a deployment, not to the
memories), and the projection and vectors (derived; import rebuilds them).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO

from ..backends import codec
from ..backends.database import DatabaseMemoryBackend
from ..backends.port import RevisionRow
from ..domain.analyzer import ANALYZER_VERSION
from ..domain.errors import DataLossError, NotFoundError
from ..domain.models import ChangeOp, EntryVersion, Lineage, MemoryChange
from ..domain.replay import MemoryReplay, ReplayError
from . import export_format as fmt
from .export_labels import label_problem, label_record

CHUNK = 64  # revisions read per read transaction
SOURCE_CHUNK = 256

Progress = Callable[[str], None]


@dataclass
class ExportReport:
    memories: int = 0
    revisions: int = 0
    entry_versions: int = 0
    sources: int = 0
    labels: int = 0  # label versions (every one ever set)
    # memory -> other memories its revisions cite that are not in the file (an import needs
    # them in the target database already)
    outside: dict[str, set[str]] = field(default_factory=dict)


async def export(
    backend: DatabaseMemoryBackend,
    out: IO[bytes],
    memory_ids: Sequence[str] = (),
    *,
    progress: Progress = lambda _: None,
) -> ExportReport:
    """Write `memory_ids` (default: every memory, and every source) to `out`."""
    async with backend.read() as session:
        wanted = sorted(set(memory_ids)) if memory_ids else await session.tx.artifact_ids()
        heads = await session.heads(wanted)
        profile = await session.tx.embedding_profile_json()
        unused_sources = [] if memory_ids else await session.tx.all_source_ids()
    for artifact_id in wanted:
        if artifact_id not in heads:
            raise NotFoundError(
                f"memory {artifact_id} does not exist",
                reason="MEMORY_NOT_FOUND",
                metadata={"artifactId": artifact_id},
            )
    writer = fmt.Writer(out)
    writer.write(
        fmt.header_record(
            exported_at=_utc_now(),
            source_backend=backend.name,
            analyzer=ANALYZER_VERSION,
            embedding_profile=json.loads(profile) if profile else None,
            memories=len(wanted),
        )
    )
    exporter = _Exporter(backend, writer, heads)
    for number, artifact_id in enumerate(sorted(wanted), start=1):
        await exporter.until(artifact_id, heads[artifact_id])
        progress(f"export: [{number}/{len(wanted)}] {artifact_id}: {heads[artifact_id]} revisions")
    await exporter.sources([s for s in unused_sources if s not in exporter.written_sources])
    writer.finish()
    report = exporter.report
    report.memories = len(wanted)
    return report


def _utc_now() -> str:
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"


@dataclass(frozen=True, slots=True)
class _Read:
    row: RevisionRow
    changes: tuple[MemoryChange, ...]
    created: list[EntryVersion]


class _Exporter:
    """Streams memories in an order where every revision follows the revisions it cites."""

    def __init__(
        self, backend: DatabaseMemoryBackend, writer: fmt.Writer, heads: dict[str, int]
    ) -> None:
        self.backend = backend
        self.writer = writer
        self.heads = heads
        self.report = ExportReport()
        self.written_sources: set[str] = set()
        self._replays: dict[str, MemoryReplay] = {}
        self._busy: set[str] = set()

    async def until(self, artifact_id: str, revision: int) -> None:
        """Write `artifact_id` up to `revision` (first what those revisions cite)."""
        replay = self._replays.get(artifact_id)
        if replay is None:
            replay = self._replays[artifact_id] = MemoryReplay(artifact_id)
            self.writer.write(fmt.memory_record(artifact_id, self.heads[artifact_id]))
        if replay.revision >= revision:
            return
        if artifact_id in self._busy:  # only a forged history can cite its own future
            raise DataLossError(
                f"artifact_revisions[{artifact_id}@{revision}]: cited by a revision it cites",
                metadata={"row": f"artifact_revisions[{artifact_id}@{revision}]"},
            )
        self._busy.add(artifact_id)
        try:
            while replay.revision < revision:
                last = min(revision, replay.revision + CHUNK)
                for item in await self._read(artifact_id, replay.revision + 1, last):
                    await self._revision(replay, item)
        finally:
            self._busy.discard(artifact_id)
        if replay.revision == self.heads[artifact_id]:
            await self._labels(artifact_id)

    async def _labels(self, artifact_id: str) -> None:
        """Every label version of a memory whose revisions are all written, verified."""
        async with self.backend.read() as session:
            rows = await session.tx.memory_label_history(artifact_id)
        for expected, row in enumerate(rows, start=1):
            where = f"memory_labels[{artifact_id}@{row.label_version}]"
            if row.label_version != expected:
                raise DataLossError(
                    f"memory_labels[{artifact_id}@{expected}]: missing below version "
                    f"{row.label_version}",
                    metadata={"row": f"memory_labels[{artifact_id}@{expected}]"},
                )
            problem = label_problem(row.label)
            if problem is not None:
                raise DataLossError(f"{where}: the label {problem}", metadata={"row": where})
            self.writer.write(label_record(row))
        self.report.labels += len(rows)

    async def _read(self, artifact_id: str, first: int, last: int) -> list[_Read]:
        """Revisions first..last with the entry versions each creates, verified."""
        async with self.backend.read() as session:
            rows = await session.tx.revision_rows(artifact_id, first, last)
            numbers = [r.revision for r in rows]
            if numbers != list(range(first, last + 1)):
                missing = min(set(range(first, last + 1)) - set(numbers))
                raise DataLossError(
                    f"artifact_revisions[{artifact_id}@{missing}]: missing below the head",
                    metadata={"row": f"artifact_revisions[{artifact_id}@{missing}]"},
                )
            # The compact changes (verified), and the rows for their lineage and timestamps.
            changes = [item.changes for item in await session.changes(artifact_id, first, last)]
            created_ids = [
                c.to_entry_version_id
                for items in changes
                for c in items
                if c.op in (ChangeOp.ADD, ChangeOp.REVISE) and c.to_entry_version_id
            ]
            versions = await session.versions(created_ids)
        return [
            _Read(
                row,
                items,
                [
                    versions[c.to_entry_version_id]
                    for c in items
                    if c.op in (ChangeOp.ADD, ChangeOp.REVISE) and c.to_entry_version_id
                ],
            )
            for row, items in zip(rows, changes, strict=True)
        ]

    async def _revision(self, replay: MemoryReplay, item: _Read) -> None:
        row = item.row
        where = f"artifact_revisions[{row.artifact_id}@{row.revision}]"
        try:
            lineage = Lineage.from_json(json.loads(row.lineage))
        except (KeyError, TypeError, ValueError) as error:
            raise DataLossError(
                f"{where}: lineage does not parse ({error})", metadata={"row": where}
            ) from error
        cited = {*lineage.artifacts, *(a for v in item.created for a in v.content.artifact_refs)}
        for ref in sorted(cited):
            if ref.artifact_id == row.artifact_id:
                continue  # an earlier revision of this memory: already written
            if ref.artifact_id in self.heads:
                await self.until(ref.artifact_id, ref.revision)
            else:
                self.report.outside.setdefault(row.artifact_id, set()).add(ref.artifact_id)
        await self.sources(
            sorted(
                {
                    *(s.source_id for s in lineage.sources),
                    *(s.source_id for v in item.created for s in v.content.source_refs),
                }
            )
        )
        try:
            content = replay.apply(row.revision, item.changes, item.created)
        except ReplayError as error:
            raise DataLossError(f"{where}: {error}", metadata={"row": where}) from error
        if content.content_hash != row.content_hash:
            raise DataLossError(
                f"{where}: the manifest differs from the previous one with these changes applied",
                metadata={"row": where},
            )
        for version in item.created:
            self.writer.write(fmt.version_record(version))
        record = fmt.RevisionRecord(
            row.artifact_id,
            row.revision,
            item.changes,
            row.content_hash,
            lineage,
            row.committed_at_ms,
        )
        self.writer.write(record.to_json())
        self.report.revisions += 1
        self.report.entry_versions += len(item.created)

    async def sources(self, source_ids: Sequence[str]) -> None:
        """Write the sources not written yet (verified by the codec)."""
        todo = [s for s in source_ids if s not in self.written_sources]
        for start in range(0, len(todo), SOURCE_CHUNK):
            chunk = todo[start : start + SOURCE_CHUNK]
            async with self.backend.read() as session:
                rows = {r.source_id: r for r in await session.tx.source_rows(chunk)}
            for source_id in chunk:
                if source_id not in rows:
                    raise DataLossError(
                        f"sources[{source_id}]: cited but missing",
                        metadata={"row": f"sources[{source_id}]"},
                    )
                self.writer.write(fmt.source_record(codec.source_from_row(rows[source_id])))
                self.written_sources.add(source_id)
                self.report.sources += 1
