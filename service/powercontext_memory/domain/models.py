"""Immutable domain objects and their canonical JSON shapes.

The JSON shapes here are what gets hashed (RFC 8785); changing one changes every hash, so they
live in exactly one place. Refs are always held sorted and de-duplicated.
"""

from __future__ import annotations

import enum
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .canonical import (
    EMBEDDING_CONTENT_PREFIX,
    ENTRY_CONTENT_PREFIX,
    ENTRY_CONTENT_V2_PREFIX,
    canonical_json,
    prefixed_sha256,
    sha256_hex,
)

# The manifest row lives below the manifest pieces; the service keeps importing it from here.
from .manifest_entry import EntryState as EntryState
from .manifest_entry import ManifestEntry
from .manifest_pieces import PieceManifest, cut_leaves

MEMORY_SCHEMA = "powercontext.memory.v1"
MANIFEST_FORMAT = "flat-v1"
MEMORY_FAMILY = "memory"


class ChangeOp(enum.StrEnum):
    ADD = "add"
    REVISE = "revise"
    DEACTIVATE = "deactivate"
    REACTIVATE = "reactivate"


@dataclass(frozen=True, slots=True, order=True)
class ArtifactRef:
    artifact_id: str
    revision: int

    def to_json(self) -> dict[str, Any]:
        return {"artifact_id": self.artifact_id, "revision": self.revision}

    @staticmethod
    def from_json(data: dict[str, Any]) -> ArtifactRef:
        return ArtifactRef(str(data["artifact_id"]), int(data["revision"]))

    def __str__(self) -> str:
        return f"{self.artifact_id}@{self.revision}"


@dataclass(frozen=True, slots=True, order=True)
class SourceRef:
    source_id: str
    content_hash: str

    def to_json(self) -> dict[str, Any]:
        return {"content_hash": self.content_hash, "source_id": self.source_id}

    @staticmethod
    def from_json(data: dict[str, Any]) -> SourceRef:
        return SourceRef(str(data["source_id"]), str(data["content_hash"]))


def _json_string(value: str) -> str:
    # json.dumps escapes exactly what RFC 8785 escapes when ensure_ascii is off.
    return json.dumps(value, ensure_ascii=False)


def source_refs_json(refs: tuple[SourceRef, ...]) -> str:
    """Canonical JSON array of source refs (keys in JCS order: content_hash, source_id)."""
    items = ",".join(
        f'{{"content_hash":{_json_string(r.content_hash)},"source_id":{_json_string(r.source_id)}}}'
        for r in refs
    )
    return f"[{items}]"


def artifact_refs_json(refs: tuple[ArtifactRef, ...]) -> str:
    """Canonical JSON array of artifact refs (keys in JCS order: artifact_id, revision)."""
    items = ",".join(
        f'{{"artifact_id":{_json_string(r.artifact_id)},"revision":{int(r.revision)}}}'
        for r in refs
    )
    return f"[{items}]"


def normalize_source_refs(refs: tuple[SourceRef, ...] | list[SourceRef]) -> tuple[SourceRef, ...]:
    """Sorted by (source_id, content_hash), duplicates removed (ids are ASCII: bytes order)."""
    return tuple(sorted(set(refs)))


def normalize_artifact_refs(
    refs: tuple[ArtifactRef, ...] | list[ArtifactRef],
) -> tuple[ArtifactRef, ...]:
    return tuple(sorted(set(refs)))


@dataclass(frozen=True, slots=True)
class EntryContent:
    """What an entry version says and what directly supports it; all of it is hashed.

    Two hash versions: content without a description (every version written before
    descriptions existed) hashes exactly as it always did (v1: artifact_refs, kind,
    source_refs, text); content with a description hashes as v2, whose canonical JSON adds
    "description" and "tags" under its own prefix. Tags need a description (v2).
    """

    kind: str
    text: str
    source_refs: tuple[SourceRef, ...] = ()
    artifact_refs: tuple[ArtifactRef, ...] = ()
    description: str | None = None
    tags: tuple[str, ...] = ()  # sorted, distinct (domain/descriptions.py validates)

    @property
    def hash_version(self) -> int:
        return 1 if self.description is None else 2

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "artifact_refs": [r.to_json() for r in self.artifact_refs],
            "kind": self.kind,
            "source_refs": [r.to_json() for r in self.source_refs],
            "text": self.text,
        }
        if self.description is not None:
            data["description"] = self.description
            data["tags"] = list(self.tags)
        return data

    def canonical_bytes(self) -> bytes:
        """Same bytes as canonical_json(to_json()), assembled from pieces (on every read)."""
        if self.description is None:
            if self.tags:
                raise ValueError("entry content with tags must carry a description (v2)")
            return (
                f'{{"artifact_refs":{artifact_refs_json(self.artifact_refs)},'
                f'"kind":{_json_string(self.kind)},'
                f'"source_refs":{source_refs_json(self.source_refs)},'
                f'"text":{_json_string(self.text)}}}'
            ).encode()
        tags = ",".join(_json_string(t) for t in self.tags)
        return (
            f'{{"artifact_refs":{artifact_refs_json(self.artifact_refs)},'
            f'"description":{_json_string(self.description)},'
            f'"kind":{_json_string(self.kind)},'
            f'"source_refs":{source_refs_json(self.source_refs)},'
            f'"tags":[{tags}],'
            f'"text":{_json_string(self.text)}}}'
        ).encode()

    def content_hash(self) -> str:
        prefix = ENTRY_CONTENT_PREFIX if self.description is None else ENTRY_CONTENT_V2_PREFIX
        return prefixed_sha256(prefix, self.canonical_bytes())

    def normalized(self) -> EntryContent:
        return EntryContent(
            self.kind,
            self.text,
            normalize_source_refs(self.source_refs),
            normalize_artifact_refs(self.artifact_refs),
            self.description,
            tuple(sorted(set(self.tags))),
        )


@dataclass(frozen=True, slots=True)
class EntryVersion:
    memory_artifact_id: str
    entry_id: str
    entry_version_id: str
    version: int
    previous_version_id: str | None
    content: EntryContent
    entry_content_hash: str
    created_in_revision: int


@dataclass(frozen=True, slots=True)
class MemoryChange:
    op: ChangeOp
    entry_id: str
    from_entry_version_id: str | None
    to_entry_version_id: str | None
    reason: str | None = None
    # DEACTIVATE by a Merge: the result entry (the row's merged_into after the change). Absent
    # from the JSON when None, so every change written before merges existed hashes as it did,
    # and a replayed history (export/import) rebuilds merged rows from the changes alone.
    merged_into: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "entry_id": self.entry_id,
            "from_entry_version_id": self.from_entry_version_id,
            "op": self.op.value,
            "reason": self.reason,
            "to_entry_version_id": self.to_entry_version_id,
        }
        if self.merged_into is not None:
            data["merged_into_entry_id"] = self.merged_into
        return data


class MemoryContent:
    """One revision's hashed content: the flat-v1 manifest plus this revision's changes.

    The manifest is held as content-addressed pieces (domain/manifest_pieces.py) shared with
    other revisions; the flat-v1 canonical bytes are only materialised when asked for, and the
    content hash is computed over the cached piece bytes without joining them.
    """

    def __init__(
        self,
        entries: Iterable[ManifestEntry] = (),
        changes: Iterable[MemoryChange] = (),
        _canonical: bytes | None = None,
        *,
        manifest: PieceManifest | None = None,
    ) -> None:
        self.manifest = manifest if manifest is not None else PieceManifest(cut_leaves(entries))
        self.changes: tuple[MemoryChange, ...] = tuple(changes)
        self._canonical = _canonical

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemoryContent):
            return NotImplemented
        return self.content_hash == other.content_hash

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __repr__(self) -> str:
        return f"MemoryContent({self.entry_count} entries, {len(self.changes)} changes)"

    @property
    def entries(self) -> tuple[ManifestEntry, ...]:
        """Every manifest row in entry_id order (a fresh tuple: O(n), for whole-manifest uses)."""
        return tuple(self.manifest)

    @property
    def entry_count(self) -> int:
        return self.manifest.count

    def to_json(self) -> dict[str, Any]:
        return {
            "changes": [c.to_json() for c in self.changes],
            "manifest": {
                "entries": [e.to_json() for e in self.manifest],
                "format": MANIFEST_FORMAT,
            },
            "schema": MEMORY_SCHEMA,
        }

    def _framing(self) -> tuple[bytes, bytes]:
        """The canonical bytes around the manifest rows (keys in JCS order: changes, manifest
        {entries, format}, schema)."""
        changes = canonical_json([c.to_json() for c in self.changes]).decode("utf-8")
        head = f'{{"changes":{changes},"manifest":{{"entries":['.encode()
        tail = f'],"format":"{MANIFEST_FORMAT}"}},"schema":"{MEMORY_SCHEMA}"}}'.encode()
        return head, tail

    @cached_property
    def canonical_bytes(self) -> bytes:
        """RFC 8785 bytes, joined from the piece bytes (only export-like reads need them)."""
        if self._canonical is not None:
            return self._canonical
        head, tail = self._framing()
        return head + b",".join([leaf.body for leaf in self.manifest.leaves]) + tail

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the canonical bytes, fed piece by piece: the one O(size) step of a commit,
        and it runs at hashing speed over bytes already encoded."""
        if self._canonical is not None:
            return sha256_hex(self._canonical)
        head, tail = self._framing()
        digest = hashlib.sha256(head)
        for at, leaf in enumerate(self.manifest.leaves):
            if at:
                digest.update(b",")
            digest.update(leaf.body)
        digest.update(tail)
        return digest.hexdigest()

    @cached_property
    def by_entry_id(self) -> dict[str, ManifestEntry]:
        """A flat dict of the manifest (O(n)); prefer entry() for lookups."""
        return {e.entry_id: e for e in self.manifest}

    def entry(self, entry_id: str) -> ManifestEntry | None:
        """The manifest row of one entry, or None when this revision has no such entry."""
        return self.manifest.entry(entry_id)

    @property
    def active_count(self) -> int:
        return self.manifest.active_count

    def updated(
        self, updates: Mapping[str, ManifestEntry], changes: Iterable[MemoryChange]
    ) -> MemoryContent:
        """The next revision's content: `updates` put into this manifest (only the pieces
        they touch are re-encoded), with `changes` as its changes."""
        return MemoryContent(changes=changes, manifest=self.manifest.updated(updates))


@dataclass(frozen=True, slots=True)
class Lineage:
    """Operation evidence of a revision; entry evidence lives on entry versions."""

    operation: str
    sources: tuple[SourceRef, ...] = ()
    artifacts: tuple[ArtifactRef, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "artifacts": [a.to_json() for a in self.artifacts],
            "operation": self.operation,
            "sources": [s.to_json() for s in self.sources],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Lineage:
        return Lineage(
            str(data["operation"]),
            tuple(SourceRef.from_json(s) for s in data.get("sources", [])),
            tuple(ArtifactRef.from_json(a) for a in data.get("artifacts", [])),
        )


@dataclass(frozen=True, slots=True)
class Revision:
    ref: ArtifactRef
    content: MemoryContent
    lineage: Lineage
    committed_at_ms: int


@dataclass(frozen=True, slots=True)
class Source:
    source_id: str
    kind: str
    uri: str
    media_type: str
    content: bytes
    metadata: tuple[tuple[str, str], ...]
    content_hash: str
    created_at_ms: int

    @property
    def ref(self) -> SourceRef:
        return SourceRef(self.source_id, self.content_hash)


@dataclass(frozen=True, slots=True)
class Citation:
    memory_ref: ArtifactRef
    entry_id: str
    entry_version_id: str


@dataclass(frozen=True)
class EmbeddingProfile:
    """The one embedding configuration a database is created with (fixed: docs/vectors.md).

    Vectors are only comparable within one profile; a server whose model has another profile
    must not write or search vectors until an offline migration re-embeds everything.
    """

    profile_id: str
    model: str
    dimension: int
    distance: str = "l2"
    # "l2": vectors are scaled to unit length, so L2 distance orders like cosine similarity.
    normalization: str = "l2"

    def to_json(self) -> dict[str, Any]:
        return {
            "dimension": self.dimension,
            "distance": self.distance,
            "model": self.model,
            "normalization": self.normalization,
            "profile_id": self.profile_id,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> EmbeddingProfile:
        return EmbeddingProfile(
            str(data["profile_id"]),
            str(data["model"]),
            int(data["dimension"]),
            str(data["distance"]),
            str(data["normalization"]),
        )

    @cached_property
    def canonical_text(self) -> str:
        return canonical_json(self.to_json()).decode()

    def embedding_content_hash(self, entry_content_hash: str) -> str:
        """Proves a vector was made by this profile for exactly this entry content.

        SHA-256(prefix + JCS{"entry_content_hash", "profile"}), assembled from the profile's
        canonical text because a vector index checks this for every stored vector.
        """
        payload = (
            f'{{"entry_content_hash":{json.dumps(entry_content_hash)},'
            f'"profile":{self.canonical_text}}}'
        ).encode()
        return prefixed_sha256(EMBEDDING_CONTENT_PREFIX, payload)
