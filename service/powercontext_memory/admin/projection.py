"""Offline maintenance: rebuild the projection (full text + vectors) and migrate embeddings.

Run with writes stopped. Each memory is rebuilt in one transaction from its authoritative
head (manifest + entry versions), so a crash leaves every memory either rebuilt or as it was,
and re-running finishes the job. Valid stored vectors are kept; missing or invalid ones are
embedded again when a model of the database's profile is given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..backends.database import DatabaseMemoryBackend
from ..backends.read_session import ReadSession
from ..domain.errors import FailedPreconditionError
from ..domain.models import ArtifactRef, EntryState
from ..memory import MemoryService, embed_checked
from ..search.searcher import memory_vectors
from ..search.vector_index import valid_vector

EMBED_BATCH = 256

Progress = Callable[[str], None]


@dataclass
class RebuildReport:
    memories: int = 0
    rows: int = 0
    embedded: int = 0
    kept: int = 0
    without_vector: list[str] = field(default_factory=list)  # memories left incomplete

    @property
    def complete(self) -> bool:
        return not self.without_vector


async def rebuild(
    service: MemoryService,
    *,
    reembed_all: bool = False,
    progress: Progress = lambda _: None,
) -> RebuildReport:
    """Rebuild every memory's projection; embed what lacks a valid vector (or everything)."""
    backend = service.backend
    model = service.embedding
    if model is not None and backend.profile is not None and model.profile != backend.profile:
        raise FailedPreconditionError(
            f"the model's profile {model.profile.profile_id!r} is not the database's "
            f"{backend.profile.profile_id!r}: use migrate-embedding",
            reason="EMBEDDING_PROFILE_MISMATCH",
        )
    report = RebuildReport()
    async with backend.read() as session:
        ids = await session.tx.artifact_ids()
    for number, artifact_id in enumerate(ids, start=1):
        vectors, embedded, kept = await _vectors_for(service, artifact_id, reembed_all)
        rows = await backend.rebuild_projection(artifact_id, vectors)
        report.memories += 1
        report.rows += rows
        report.embedded += embedded
        report.kept += kept
        if backend.profile is not None and len(vectors) < rows:
            report.without_vector.append(artifact_id)
        progress(
            f"[{number}/{len(ids)}] {artifact_id}: {rows} active entries, "
            f"{embedded} embedded, {kept} vectors kept"
        )
    await _check_complete(service, ids, report)
    return report


async def rebuild_memory(service: MemoryService, artifact_id: str) -> tuple[int, int, int]:
    """One memory's projection rebuilt from its head, embedding what lacks a valid vector when
    the service has a model of the database's profile: (rows, embedded, vectors kept)."""
    vectors, embedded, kept = await _vectors_for(service, artifact_id, False)
    rows = await service.backend.rebuild_projection(artifact_id, vectors)
    return rows, embedded, kept


async def migrate(service: MemoryService, progress: Progress = lambda _: None) -> RebuildReport:
    """Switch the database to the model's profile: drop every vector, embed everything."""
    model = service.embedding
    if model is None:
        raise FailedPreconditionError("migrate-embedding needs an embedding model")
    await service.backend.set_profile(model.profile)
    progress(
        f"embedding profile is now {model.profile.profile_id} ({model.profile.dimension} dims)"
    )
    return await rebuild(service, reembed_all=True, progress=progress)


async def _vectors_for(
    service: MemoryService, artifact_id: str, reembed_all: bool
) -> tuple[dict[str, tuple[bytes, str]], int, int]:
    """entry version id -> (vector bytes, embedding hash) for one memory's head."""
    backend = service.backend
    profile = backend.profile
    if profile is None:
        return {}, 0, 0
    async with backend.read() as session:
        head = ArtifactRef(artifact_id, await session.head(artifact_id))
        active = await _active_texts(session, head)
        keep = {} if reembed_all else await _valid_vectors(backend, session, head)
    missing = [(vid, text) for vid, (text, _) in active.items() if vid not in keep]
    vectors = {vid: keep[vid] for vid in active if vid in keep}
    can_embed = service.embedding is not None and service.embedding.profile == profile
    embedded = 0
    for start in range(0, len(missing) if can_embed else 0, EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        for (vid, _), vector in zip(
            batch,
            await embed_checked(service, [text for _, text in batch], purpose="rebuild"),
            strict=True,
        ):
            if vector is not None:
                content_hash = active[vid][1]
                vectors[vid] = (
                    vector.astype("<f4").tobytes(),
                    profile.embedding_content_hash(content_hash),
                )
                embedded += 1
    return vectors, embedded, len(keep)


async def _active_texts(session: ReadSession, head: ArtifactRef) -> dict[str, tuple[str, str]]:
    """version id -> (text, content hash) of the head's active entries."""
    revision = await session.revision(head)
    active = [e for e in revision.content.entries if e.state is EntryState.ACTIVE]
    versions = await session.versions([e.entry_version_id for e in active])
    return {
        e.entry_version_id: (versions[e.entry_version_id].content.text, e.entry_content_hash)
        for e in active
    }


async def _valid_vectors(
    backend: DatabaseMemoryBackend, session: ReadSession, head: ArtifactRef
) -> dict[str, tuple[bytes, str]]:
    """The head's stored vectors that are still valid, read from storage (kept by a rebuild)."""
    profile = backend.profile
    assert profile is not None
    out = {}
    for row in await session.tx.vector_rows(head.artifact_id, None):
        vector = valid_vector(row, profile)
        if vector is not None and row.embedding_content_hash is not None:
            out[row.entry_version_id] = (vector.astype("<f4").tobytes(), row.embedding_content_hash)
    return out


async def _check_complete(service: MemoryService, ids: list[str], report: RebuildReport) -> None:
    """Re-derive completeness from storage (not from what was just written)."""
    indexes = service.indexes
    if indexes.vectors is None:
        return
    indexes.vectors.forget()
    incomplete = []
    async with service.backend.read() as session:
        for artifact_id in ids:
            head = ArtifactRef(artifact_id, await session.head(artifact_id))
            if not (await memory_vectors(indexes, session, head)).complete:
                incomplete.append(artifact_id)
    report.without_vector = incomplete
