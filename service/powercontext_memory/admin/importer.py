"""`powercontext-memory import`: an export file into any database; verified, idempotent, resumable.

Two passes over the file, each reading it as verified events (import_stream.py). The first
writes nothing: it checks the frame (header; trailer counts and digest, so a truncated or edited
file is refused), recomputes every hash from canonical bytes (sources, entry versions, and each
revision's content rebuilt by replaying its changes) and every rule a commit obeys, and
compares the file with the target: a memory the target already holds must hold the same
revisions (else the import is refused as a conflict), and whatever a revision cites must be
earlier in the file or already in the target. Any problem names its line; nothing is written.

The second pass writes what the target lacks through the storage SPI and the codec, in batches
of revisions: one write transaction per batch holds the batch's sources, revisions, head move
(a compare-and-swap), entry versions and the head projection brought up to date, so the target
is consistent (and passes `verify`) after every batch. An interrupted import, re-run, skips what
is there and goes on; a complete one, re-run, changes nothing. With an embedding model, each
memory written gets its vectors at the end (admin rebuild of that memory). A memory's labels
(every version) are compared with the target's in the first pass and the versions it lacks
written after the memory's revisions (import_labels.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..backends import codec
from ..backends.commit_rows import expected_projection
from ..backends.database import DatabaseMemoryBackend
from ..backends.port import RevisionExistsError, WriteTransaction
from ..backends.read_session import ReadSession
from ..backends.revision_cache import RevisionCache
from ..backends.source_links import source_links
from ..domain.errors import FailedPreconditionError
from ..domain.lifecycle import cited_evidence
from ..domain.models import (
    ArtifactRef,
    EntryState,
    MemoryContent,
    Revision,
    Source,
    SourceRef,
)
from ..memory import MemoryService
from . import export_format as fmt
from .export_format import ExportFileError
from .import_labels import LabelCheck, insert_missing
from .import_stream import Event, Label, MemoryStart, Unit, events
from .import_warnings import warn_label_secret, warn_secrets
from .projection import rebuild_memory

BATCH_REVISIONS = 64
BATCH_BYTES = 32 * 1024 * 1024  # canonical content held per batch (manifests grow with memories)
HASH_CHUNK = 64

Progress = Callable[[str], None]
BatchHook = Callable[[str, int], None]  # test seam: (memory, last revision) after each commit


class ImportRefusedError(Exception):
    """The first pass found a problem (named by line); nothing was written."""


class ImportConflictError(Exception):
    """The target contradicts the file, or lacks what the file cites (found before writing)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass
class ImportReport:
    memories: int = 0
    memories_written: int = 0
    memories_present: int = 0  # already held every revision of the file
    revisions_written: int = 0
    entry_versions_written: int = 0
    sources_written: int = 0
    labels_written: int = 0
    embedded: int = 0
    without_vectors: list[str] = field(default_factory=list)


# -- pass 1: check everything against the target, write nothing --------------------------------


class _Target:
    """What the target holds, read in small transactions."""

    def __init__(self, backend: DatabaseMemoryBackend) -> None:
        self.backend = backend
        self._hashes: dict[tuple[str, int], str] = {}

    async def head(self, artifact_id: str) -> int:
        async with self.backend.read() as session:
            return (await session.heads([artifact_id])).get(artifact_id, 0)

    async def content_hash(self, artifact_id: str, revision: int, head: int) -> str:
        key = (artifact_id, revision)
        if key not in self._hashes:
            self._hashes = {}
            last = min(head, revision + HASH_CHUNK - 1)
            async with self.backend.read() as session:
                for item in await session.changes(artifact_id, revision, last):
                    self._hashes[(artifact_id, item.ref.revision)] = item.content_hash
        return self._hashes[key]

    async def check_sources(self, sources: tuple[tuple[int, Source], ...]) -> None:
        """A source the target holds under the same id must be the same source."""
        if not sources:
            return
        async with self.backend.read() as session:
            rows = {
                r.source_id: r
                for r in await session.tx.source_rows([s.source_id for _, s in sources])
            }
        for line, source in sources:
            row = rows.get(source.source_id)
            if row is not None and row.content_hash != source.content_hash:
                raise ImportConflictError(
                    line,
                    f"source {source.source_id} has hash {row.content_hash} in the target, "
                    f"{source.content_hash} in the file",
                )

    async def check_evidence(self, unit: Unit) -> None:
        if not unit.outside_sources and not unit.outside_artifacts:
            return
        what = f"revision {unit.artifact_id}@{unit.revision}"
        async with self.backend.read() as session:
            if unit.outside_sources:
                rows = await session.tx.source_rows([s.source_id for s in unit.outside_sources])
                held = {SourceRef(r.source_id, r.content_hash) for r in rows}
                for ref in unit.outside_sources:
                    if ref not in held:
                        raise ImportConflictError(
                            unit.line,
                            f"{what} cites source {ref.source_id}, which is neither earlier in "
                            "the file nor in the target database",
                        )
            if unit.outside_artifacts:
                wanted = [(a.artifact_id, a.revision) for a in unit.outside_artifacts]
                existing = await session.tx.existing_revisions(wanted)
                for artifact_id, revision in wanted:
                    if (artifact_id, revision) not in existing:
                        raise ImportConflictError(
                            unit.line,
                            f"{what} cites {artifact_id}@{revision}, which is neither earlier in "
                            "the file nor in the target database: export that memory too, or "
                            "import it first",
                        )


async def _check(backend: DatabaseMemoryBackend, path: Path, progress: Progress) -> dict[str, int]:
    """Pass 1: verify the file and compare it with the target; the target's head per memory."""
    target = _Target(backend)
    labels = LabelCheck(backend)
    heads: dict[str, int] = {}
    with path.open("rb") as stream:
        for event in events(stream):
            if isinstance(event, fmt.Header):
                progress(
                    f"import: {path.name}: {event.memories} memories exported "
                    f"{event.exported_at} from {event.source_backend}"
                )
            elif isinstance(event, MemoryStart):
                heads[event.artifact_id] = await target.head(event.artifact_id)
            elif isinstance(event, Unit):
                await _check_revision_unit(target, event, heads[event.artifact_id])
                warn_secrets(event.created, event.sources, progress)
            elif isinstance(event, Label):
                problem = await labels.problem(event)
                if problem is not None:
                    raise ImportConflictError(event.line, problem)
                warn_label_secret(event, progress)
            else:
                await target.check_sources(event.sources)
                warn_secrets((), event.sources, progress)
    progress(f"import: {path.name}: every line verified")
    return heads


async def _check_revision_unit(target: _Target, unit: Unit, held: int) -> None:
    await target.check_sources(unit.sources)
    if unit.revision > held:
        await target.check_evidence(unit)
        return
    stored = await target.content_hash(unit.artifact_id, unit.revision, held)
    if stored != unit.content.content_hash:
        raise ImportConflictError(
            unit.line,
            f"memory {unit.artifact_id} conflicts with the target: its revision "
            f"{unit.revision} has content hash {stored} there, {unit.content.content_hash} in "
            "the file (another memory with the same id, or a different history)",
        )


# -- pass 2: write what the target lacks --------------------------------------------------------


async def import_file(
    service: MemoryService,
    path: Path,
    *,
    progress: Progress = lambda _: None,
    batch_revisions: int = BATCH_REVISIONS,
    on_batch: BatchHook | None = None,
) -> ImportReport:
    """Verify the whole file against the target, then write what the target lacks."""
    backend = service.backend
    model = service.embedding
    if model is not None and backend.profile is not None and model.profile != backend.profile:
        raise FailedPreconditionError(
            f"the model's profile {model.profile.profile_id!r} is not the target's "
            f"{backend.profile.profile_id!r}",
            reason="EMBEDDING_PROFILE_MISMATCH",
        )
    try:
        planned = await _check(backend, path, progress)
    except (ExportFileError, ImportConflictError) as error:
        raise ImportRefusedError(f"{error}; nothing was imported") from error
    writer = _Writer(service, planned, progress, batch_revisions, on_batch)
    with path.open("rb") as stream:
        for event in events(stream):
            await writer.take(event)
    return writer.report


class _Writer:
    def __init__(
        self,
        service: MemoryService,
        planned: dict[str, int],
        progress: Progress,
        batch_revisions: int,
        on_batch: BatchHook | None,
    ) -> None:
        self.service = service
        self.backend = service.backend
        self.planned = planned
        self.progress = progress
        self.batch_revisions = batch_revisions
        self.on_batch = on_batch
        self.report = ImportReport()
        self._batch: list[Unit] = []
        self._batch_bytes = 0
        self._sources: list[Source] = []
        self._labels: list[Label] = []
        self._count = 0
        self._total = 0

    async def take(self, event: Event) -> None:
        if isinstance(event, Label):
            self._labels.append(event)  # a memory's labels are written together
            return
        await self._write_labels()
        if isinstance(event, fmt.Header):
            self._total = event.memories
            self.report.memories = event.memories
        elif isinstance(event, MemoryStart):
            await self._flush()
            await self._start(event)
        elif isinstance(event, Unit):
            await self._revision_unit(event)
        else:
            self._sources.extend(s for _, s in event.sources)
            await self._flush()
            if self._sources:
                async with self.backend.adapter.write() as tx:
                    await self._write_sources(tx)

    async def _start(self, event: MemoryStart) -> None:
        held = await _Target(self.backend).head(event.artifact_id)
        if held != self.planned[event.artifact_id]:
            raise ImportConflictError(
                event.line,
                f"memory {event.artifact_id} changed in the target during the import "
                f"(head {self.planned[event.artifact_id]}, now {held}): run the import again",
            )
        self._count += 1
        if held >= event.head:
            self.report.memories_present += 1
            self.progress(
                f"import: [{self._count}/{self._total}] {event.artifact_id}: already holds "
                f"revisions 1-{event.head}"
            )
            await self._complete(event.artifact_id)
        elif held:
            self.progress(
                f"import: [{self._count}/{self._total}] {event.artifact_id}: resuming after "
                f"revision {held} of {event.head}"
            )

    async def _revision_unit(self, unit: Unit) -> None:
        if unit.revision <= self.planned[unit.artifact_id]:
            self._sources.extend(s for _, s in unit.sources)
            return
        if self._batch and self._batch[0].artifact_id != unit.artifact_id:
            await self._flush()  # another memory's revision: it may cite this batch
        self._batch.append(unit)
        self._sources.extend(s for _, s in unit.sources)
        self._batch_bytes += len(unit.content.canonical_bytes)
        if (
            len(self._batch) >= self.batch_revisions
            or self._batch_bytes >= BATCH_BYTES
            or unit.revision == unit.head
        ):
            await self._flush()
            if unit.revision == unit.head:
                self.report.memories_written += 1
                await self._complete(unit.artifact_id)

    async def _flush(self) -> None:
        batch, self._batch, self._batch_bytes = self._batch, [], 0
        if not batch:
            return
        artifact_id = batch[0].artifact_id
        first, last = batch[0].revision, batch[-1].revision
        async with self.backend.adapter.write() as tx:
            await self._write_sources(tx)
            try:
                stored: frozenset[str] = frozenset()  # pieces the batch's last revision wrote
                for unit in batch:
                    await tx.insert_manifest_pieces(codec.piece_rows(unit.content, stored))
                    stored = codec.stored_piece_keys(unit.content)
                    await tx.insert_revision(
                        codec.revision_to_row(
                            artifact_id,
                            unit.revision,
                            unit.content,
                            unit.lineage,
                            unit.committed_at_ms,
                        )
                    )
                moved = await tx.advance_head(artifact_id, first - 1, last)
            except RevisionExistsError:  # another writer committed one of them meanwhile
                moved = False
            if not moved:
                raise ImportConflictError(
                    batch[0].line,
                    f"memory {artifact_id} changed in the target during the import: run the "
                    "import again",
                )
            versions = [codec.version_to_row(v) for unit in batch for v in unit.created]
            await tx.insert_entry_versions(versions)
            for unit in batch:  # the imported memory's tokens read what it cites, as on commit
                cited, _ = cited_evidence(unit.lineage, unit.created)
                await tx.insert_source_links(source_links(artifact_id, cited, unit.committed_at_ms))
            await _project(tx, batch)
        self.planned[artifact_id] = last
        self.report.revisions_written += len(batch)
        self.report.entry_versions_written += len(versions)
        self.progress(
            f"import: [{self._count}/{self._total}] {artifact_id}: revisions {first}-{last} of "
            f"{batch[-1].head} written"
        )
        if self.on_batch is not None:
            self.on_batch(artifact_id, last)

    async def _write_labels(self) -> None:
        """The labels taken since the last other record: those of one memory, whose revisions
        are all in the target (the file puts labels after them, and its head flushed them)."""
        labels, self._labels = self._labels, []
        if not labels:
            return
        async with self.backend.adapter.write() as tx:
            written, contradicted = await insert_missing(tx, labels)
            if contradicted is not None:  # raised inside: nothing of this memory's labels stays
                raise ImportConflictError(
                    contradicted.line,
                    f"memory {contradicted.row.memory_artifact_id}'s label changed in the "
                    "target during the import: run the import again",
                )
        self.report.labels_written += written

    async def _write_sources(self, tx: WriteTransaction) -> None:
        sources, self._sources = self._sources, []
        for source in sources:
            if await tx.insert_source(codec.source_to_row(source)):
                self.report.sources_written += 1

    async def _complete(self, artifact_id: str) -> None:
        """With a model, give the memory's active entries the vectors they lack."""
        if self.service.embedding is None or self.backend.profile is None:
            return
        async with self.backend.read() as session:
            rows = await session.tx.vector_rows(artifact_id, None, with_vectors=False)
        if all(r.has_vector for r in rows):
            return
        _, embedded, _ = await rebuild_memory(self.service, artifact_id)
        self.report.embedded += embedded
        async with self.backend.read() as session:
            rows = await session.tx.vector_rows(artifact_id, None, with_vectors=False)
        if not all(r.has_vector for r in rows):
            self.report.without_vectors.append(artifact_id)


async def _project(tx: WriteTransaction, batch: list[Unit]) -> None:
    """Bring the head projection of the batch's memory to its last revision: only the entries
    the batch changed, with text read back from the transaction (the shared rule builds rows)."""
    last = batch[-1]
    changed = sorted({c.entry_id for unit in batch for c in unit.content.changes})
    entries = [e for e in map(last.content.entry, changed) if e is not None]
    inactive = [e.entry_id for e in entries if e.state is not EntryState.ACTIVE]
    active = tuple(e for e in entries if e.state is EntryState.ACTIVE)
    if inactive:
        await tx.remove_projection(last.artifact_id, inactive)
    if active:
        partial = Revision(
            ArtifactRef(last.artifact_id, last.revision),
            MemoryContent(active, ()),
            last.lineage,
            last.committed_at_ms,
        )
        session = ReadSession(tx, RevisionCache(max_rows=1))
        await tx.upsert_projection(last.revision, await expected_projection(session, partial))
