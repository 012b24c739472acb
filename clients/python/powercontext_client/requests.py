"""Typed helpers that build the wire messages; there is no second data model to learn.

Everything the client takes and returns is a generated protobuf message of
`powercontext.memory.v1` (types_pb2 / memory_service_pb2); these helpers only save typing:

    memory = ref("mem_art_…", 3)                              # ArtifactRef
    add = new_entry("fact", "Builds use uv.", sources=[src])  # EntryInput without `entry`
    fix = revise(hit, "Builds use uv and Hatchling.")         # EntryInput revising hit's version
    cite = citation(hit)                                      # Citation for Expand / handoffs
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

ArtifactRef = types.ArtifactRef
SourceRef = types.SourceRef
EntryInput = types.EntryInput
EntryRef = types.EntryRef
Citation = types.Citation


class _NamesAVersion(Protocol):
    """Anything carrying an exact entry version: EntryRef, MemoryManifestEntry, Hit,
    EntryResult, Citation (e.g. a ListedEntry's), EntryVersion."""

    @property
    def entry_id(self) -> str: ...

    @property
    def entry_version_id(self) -> str: ...


def ref(artifact_id: str, revision: int = 0) -> types.ArtifactRef:
    """A memory at an exact revision; revision 0 means "the head" where a request allows it."""
    return types.ArtifactRef(artifact_id=artifact_id, revision=revision)


def as_ref(memory: str | types.ArtifactRef) -> types.ArtifactRef:
    """An ArtifactRef as is, or a memory id as its head (revision 0)."""
    return ref(memory) if isinstance(memory, str) else memory


def source_ref(source: types.Source | pb.PutSourceResponse | types.SourceRef) -> types.SourceRef:
    """The exact reference entries cite, from a stored Source or PutSource's response."""
    if isinstance(source, types.SourceRef):
        return source
    if isinstance(source, pb.PutSourceResponse):
        source = source.source
    return types.SourceRef(source_id=source.source_id, content_hash=source.content_hash)


def entry_ref(entry: _NamesAVersion) -> types.EntryRef:
    return types.EntryRef(entry_id=entry.entry_id, entry_version_id=entry.entry_version_id)


def new_entry(
    kind: str,
    text: str,
    *,
    sources: Iterable[types.SourceRef] = (),
    artifacts: Iterable[types.ArtifactRef] = (),
    reason: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
) -> types.EntryInput:
    """A new entry; its evidence must be part of the operation's evidence. `description`
    (one line, 1..200 characters) is derived from the text when None."""
    return types.EntryInput(
        kind=kind,
        text=text,
        sources=sources,
        artifacts=artifacts,
        reason=reason,
        description=description,
        tags=tags,
    )


def revise(
    current: _NamesAVersion,
    text: str,
    *,
    kind: str,
    sources: Iterable[types.SourceRef] = (),
    artifacts: Iterable[types.ArtifactRef] = (),
    reason: str | None = None,
    description: str | None = None,
    tags: Iterable[str] = (),
) -> types.EntryInput:
    """A new version of the entry whose CURRENT active version is `current`. The new version
    keeps the previous version's evidence and adds `sources` / `artifacts`; its description is
    derived from `text` when None, and its tags are `tags` (a revision replaces them: pass
    the current ones to keep them)."""
    entry = new_entry(
        kind,
        text,
        sources=sources,
        artifacts=artifacts,
        reason=reason,
        description=description,
        tags=tags,
    )
    entry.entry.CopyFrom(entry_ref(current))
    return entry


def citation(
    hit_or_ref: types.Hit | types.ArtifactRef,
    entry_id: str = "",
    entry_version_id: str = "",
) -> types.Citation:
    """A handoff citation: from a search hit, or from (memory revision, entry, version)."""
    if isinstance(hit_or_ref, types.Hit):
        return types.Citation(
            memory_ref=hit_or_ref.memory_ref,
            entry_id=hit_or_ref.entry_id,
            entry_version_id=hit_or_ref.entry_version_id,
        )
    return types.Citation(
        memory_ref=hit_or_ref, entry_id=entry_id, entry_version_id=entry_version_id
    )
