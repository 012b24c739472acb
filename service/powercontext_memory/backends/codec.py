"""Stored rows <-> domain objects, verifying hashes and canonical bytes on the way in.

Shared by every adapter: a row that does not match its hash, or whose bytes are not the
canonical encoding of what they say, raises DataLossError naming the row.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..domain import manifest_pieces
from ..domain.canonical import SOURCE_CONTENT_PREFIX, canonical_json, prefixed_sha256, sha256_hex
from ..domain.errors import DataLossError
from ..domain.interning import shared_ids
from ..domain.models import (
    MEMORY_FAMILY,
    ArtifactRef,
    ChangeOp,
    EntryContent,
    EntryState,
    EntryVersion,
    Lineage,
    ManifestEntry,
    MemoryChange,
    MemoryContent,
    Revision,
    Source,
    SourceRef,
    artifact_refs_json,
    source_refs_json,
)
from ..security.tokens import AccessToken, Scope
from .port import (
    AccessTokenRow,
    ChangesRow,
    EntryVersionRow,
    ManifestPieceRow,
    RevisionRow,
    SourceRow,
)

_CHANGES_PREFIX = '{"changes":'


def _loss(what: str, detail: str) -> DataLossError:
    return DataLossError(f"{what}: {detail}", metadata={"row": what})


# -- revisions ---------------------------------------------------------------------------------


def changes_json(changes: Sequence[MemoryChange]) -> str:
    """The canonical JSON of a changes array: exactly the `changes` member of the canonical
    MemoryContent bytes (JCS is compositional), stored apart for history reads."""
    return canonical_json([c.to_json() for c in changes]).decode("utf-8")


def revision_to_row(
    artifact_id: str, revision: int, content: MemoryContent, lineage: Lineage, committed_at_ms: int
) -> RevisionRow:
    """The row of a revision whose manifest is stored as pieces (piece_rows): content is ''."""
    changes = changes_json(content.changes)
    return RevisionRow(
        artifact_id=artifact_id,
        revision=revision,
        family=MEMORY_FAMILY,
        content="",
        content_hash=content.content_hash,
        lineage=canonical_json(lineage.to_json()).decode("utf-8"),
        committed_at_ms=committed_at_ms,
        changes=changes,
        changes_hash=sha256_hex(changes.encode("utf-8")),
        manifest_root=content.manifest.root,
    )


def piece_rows(
    content: MemoryContent, stored: frozenset[str] = frozenset()
) -> list[ManifestPieceRow]:
    """The leaf and index pieces of `content` whose keys are not in `stored` (those of a base
    revision already stored as pieces): a commit writes only the pieces it changed."""
    rows = [
        ManifestPieceRow(leaf.key, leaf.body.decode("utf-8"))
        for leaf in content.manifest.leaves
        if leaf.key not in stored
    ]
    rows += [
        ManifestPieceRow(piece.key, piece.body.decode("utf-8"))
        for piece in content.manifest.index
        if piece.key not in stored
    ]
    return rows


def pieces_of_whole_row(row: RevisionRow) -> tuple[list[ManifestPieceRow], str]:
    """(pieces, root) storing a revision held whole (the migration): its content verified
    against content_hash first, and the pieces checked to give back exactly those bytes."""
    content = revision_from_row(row).content
    cut = MemoryContent(changes=content.changes, manifest=content.manifest)  # hashed from pieces
    if row.changes is None or row.changes != changes_json(content.changes):
        raise _loss(_revision_name(row), "stored changes differ from those inside the content")
    if cut.content_hash != row.content_hash:
        raise _loss(_revision_name(row), "content does not re-assemble from pieces")
    return piece_rows(cut), cut.manifest.root


def stored_piece_keys(content: MemoryContent) -> frozenset[str]:
    manifest = content.manifest
    return frozenset([leaf.key for leaf in manifest.leaves] + [p.key for p in manifest.index])


def _revision_name(row: RevisionRow) -> str:
    return f"artifact_revisions[{row.artifact_id}@{row.revision}]"


def root_index_keys(row: RevisionRow) -> list[str]:
    """The index piece keys a piece-stored revision names."""
    assert row.manifest_root is not None
    try:
        return manifest_pieces.root_keys(row.manifest_root)
    except ValueError as exc:
        raise _loss(_revision_name(row), f"manifest_root is unreadable ({exc})") from exc


def _piece_body(row: RevisionRow, key: str, pieces: Mapping[str, ManifestPieceRow]) -> str:
    piece = pieces.get(key)
    if piece is None:
        raise _loss(f"manifest_pieces[{key}]", f"missing (named by {_revision_name(row)})")
    if sha256_hex(piece.body.encode("utf-8")) != key:
        raise _loss(f"manifest_pieces[{key}]", "body does not match piece_key")
    return piece.body


def leaf_keys(
    row: RevisionRow, index_keys: Sequence[str], pieces: Mapping[str, ManifestPieceRow]
) -> list[str]:
    """The leaf keys, in manifest order, of the verified index pieces a revision names."""
    keys: list[str] = []
    for key in index_keys:
        body = _piece_body(row, key, pieces)
        keys += body.split(",") if body else []
    return keys


def manifest_entry_from_json(data: dict[str, Any]) -> ManifestEntry:
    """One stored manifest row (the caller checks the rows re-encode to the stored bytes)."""
    merged = data.get("merged_into_entry_id")
    return ManifestEntry(
        *shared_ids(data["entry_id"], data["entry_version_id"], data["entry_content_hash"]),
        EntryState(data["state"]),
        None if merged is None else str(merged),
    )


def leaf_from_row(row: RevisionRow, piece: ManifestPieceRow) -> manifest_pieces.Leaf:
    """A leaf piece, checked against its key and for being the canonical rows it says."""
    what = f"manifest_pieces[{piece.piece_key}]"
    body = _piece_body(row, piece.piece_key, {piece.piece_key: piece})
    try:
        leaf = manifest_pieces.Leaf([manifest_entry_from_json(e) for e in json.loads(f"[{body}]")])
    except (KeyError, TypeError, ValueError) as exc:
        raise _loss(what, f"body does not parse ({exc})") from exc
    if leaf.key != piece.piece_key or not leaf.entries:
        raise _loss(what, "body is not the canonical encoding of manifest rows")
    return leaf


def revision_from_pieces(row: RevisionRow, leaves: Sequence[manifest_pieces.Leaf]) -> Revision:
    """A piece-stored revision from its verified leaves: re-assembled, the content must hash
    to content_hash (the flat-v1 bytes, exactly as if stored whole)."""
    what = _revision_name(row)
    changes = changes_from_row(
        ChangesRow(
            row.artifact_id,
            row.revision,
            row.content_hash,
            row.committed_at_ms,
            row.changes,
            row.changes_hash,
        )
    )
    content = MemoryContent(changes=changes, manifest=manifest_pieces.PieceManifest(leaves))
    if content.content_hash != row.content_hash:
        raise _loss(what, "manifest pieces and changes do not match content_hash")
    try:
        lineage = Lineage.from_json(json.loads(row.lineage))
    except (KeyError, TypeError, ValueError) as exc:
        raise _loss(what, f"lineage does not parse ({exc})") from exc
    return Revision(
        ArtifactRef(row.artifact_id, row.revision), content, lineage, row.committed_at_ms
    )


def _change_from_json(data: dict[str, Any]) -> MemoryChange:
    return MemoryChange(
        ChangeOp(data["op"]),
        data["entry_id"],
        data["from_entry_version_id"],
        data["to_entry_version_id"],
        data["reason"],
        None if data.get("merged_into_entry_id") is None else str(data["merged_into_entry_id"]),
    )


def revision_from_row(row: RevisionRow) -> Revision:
    """Parse a revision, checking content hash and that the stored bytes are canonical."""
    what = f"artifact_revisions[{row.artifact_id}@{row.revision}]"
    raw = row.content.encode("utf-8")
    if sha256_hex(raw) != row.content_hash:
        raise _loss(what, "content does not match content_hash")
    try:
        data = json.loads(raw)
        manifest = data["manifest"]
        entries = tuple(manifest_entry_from_json(e) for e in manifest["entries"])
        changes = tuple(_change_from_json(c) for c in data["changes"])
        content = MemoryContent(entries, changes)
        if content.canonical_bytes != raw:
            raise _loss(what, "content is not the canonical encoding of a MemoryContent")
        lineage = Lineage.from_json(json.loads(row.lineage))
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, DataLossError):
            raise
        raise _loss(what, f"content does not parse ({exc})") from exc
    return Revision(
        ArtifactRef(row.artifact_id, row.revision),
        MemoryContent(entries, changes, _canonical=raw),
        lineage,
        row.committed_at_ms,
    )


def changes_from_row(row: ChangesRow) -> tuple[MemoryChange, ...]:
    """A revision's changes from its changes column, verified against their own hash.

    The verifier checks that these equal the changes inside the hashed content.
    """
    what = f"artifact_revisions[{row.artifact_id}@{row.revision}]"
    if row.changes is None or row.changes_hash is None:
        raise _loss(what, "changes are not stored (read them from content)")
    if sha256_hex(row.changes.encode("utf-8")) != row.changes_hash:
        raise _loss(what, "changes do not match changes_hash")
    try:
        return tuple(_change_from_json(c) for c in json.loads(row.changes))
    except (KeyError, TypeError, ValueError) as exc:
        raise _loss(what, f"changes do not parse ({exc})") from exc


def stored_changes(row: RevisionRow) -> tuple[str, str]:
    """(changes, changes_hash) to store for a revision stored without them, from its verified
    content (the backfill of databases created before the changes columns)."""
    text = changes_json(changes_from_content(row))
    return text, sha256_hex(text.encode("utf-8"))


def changes_from_content(row: RevisionRow) -> tuple[MemoryChange, ...]:
    """The changes inside the content: verify the hash, then decode just the leading array.

    Canonical JSON sorts keys, so "changes" is the first member; the manifest is never parsed.
    """
    what = f"artifact_revisions[{row.artifact_id}@{row.revision}]"
    if sha256_hex(row.content.encode("utf-8")) != row.content_hash:
        raise _loss(what, "content does not match content_hash")
    if not row.content.startswith(_CHANGES_PREFIX):
        raise _loss(what, "content is not canonical MemoryContent")
    try:
        items, _ = json.JSONDecoder().raw_decode(row.content, len(_CHANGES_PREFIX))
        return tuple(_change_from_json(c) for c in items)
    except (KeyError, TypeError, ValueError) as exc:
        raise _loss(what, f"changes do not parse ({exc})") from exc


# -- entry versions ----------------------------------------------------------------------------


def version_to_row(version: EntryVersion) -> EntryVersionRow:
    content = version.content
    return EntryVersionRow(
        memory_artifact_id=version.memory_artifact_id,
        entry_id=version.entry_id,
        entry_version_id=version.entry_version_id,
        version=version.version,
        previous_version_id=version.previous_version_id,
        kind=content.kind,
        text=content.text,
        source_refs=source_refs_json(content.source_refs),
        artifact_refs=artifact_refs_json(content.artifact_refs),
        entry_content_hash=version.entry_content_hash,
        created_in_revision=version.created_in_revision,
        description=content.description,
        tags=None if content.description is None else tags_json(content.tags),
    )


def tags_json(tags: Sequence[str]) -> str:
    """The stored form of a version's tags: their canonical JSON array."""
    return canonical_json(list(tags)).decode("utf-8")


def _tags_from_row(what: str, row: EntryVersionRow) -> tuple[str, ...]:
    """The tags of a stored version: none (NULL) without a description (hash v1), else a
    canonical JSON array of strings."""
    if row.description is None:
        if row.tags is not None:
            raise _loss(what, "tags are stored without a description")
        return ()
    if row.tags is None:
        raise _loss(what, "a described version has no stored tags")
    try:
        tags = json.loads(row.tags)
    except ValueError as exc:
        raise _loss(what, f"tags do not parse ({exc})") from exc
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise _loss(what, "tags are not a JSON array of strings")
    if tags_json(tags) != row.tags:
        raise _loss(what, "tags are not canonical JSON")
    return tuple(tags)


def version_from_row(row: EntryVersionRow) -> EntryVersion:
    """Parse an entry version, recomputing its hash (v1 or v2) from its canonical bytes."""
    what = f"memory_entry_versions[{row.entry_version_id}]"
    try:
        sources = tuple(SourceRef.from_json(r) for r in json.loads(row.source_refs))
        artifacts = tuple(ArtifactRef.from_json(r) for r in json.loads(row.artifact_refs))
    except (KeyError, TypeError, ValueError) as exc:
        raise _loss(what, f"refs do not parse ({exc})") from exc
    tags = _tags_from_row(what, row)
    content = EntryContent(row.kind, row.text, sources, artifacts, row.description, tags)
    if source_refs_json(sources) != row.source_refs or (
        artifact_refs_json(artifacts) != row.artifact_refs
    ):
        raise _loss(what, "refs are not canonical JSON")
    if content.content_hash() != row.entry_content_hash:
        raise _loss(what, "kind/text/refs/description/tags do not match entry_content_hash")
    return EntryVersion(
        memory_artifact_id=row.memory_artifact_id,
        entry_id=row.entry_id,
        entry_version_id=row.entry_version_id,
        version=row.version,
        previous_version_id=row.previous_version_id,
        content=content,
        entry_content_hash=row.entry_content_hash,
        created_in_revision=row.created_in_revision,
    )


# -- sources -----------------------------------------------------------------------------------


def source_record_hash(
    kind: str, uri: str, media_type: str, content: bytes, metadata: tuple[tuple[str, str], ...]
) -> str:
    """Hash of the canonical Source record; the content enters as its own SHA-256."""
    record = {
        "content_sha256": sha256_hex(content),
        "kind": kind,
        "media_type": media_type,
        "metadata": dict(metadata),
        "uri": uri,
    }
    return prefixed_sha256(SOURCE_CONTENT_PREFIX, canonical_json(record))


def source_to_row(source: Source) -> SourceRow:
    return SourceRow(
        source_id=source.source_id,
        kind=source.kind,
        uri=source.uri,
        media_type=source.media_type,
        content=source.content,
        metadata=canonical_json(dict(source.metadata)).decode("utf-8"),
        content_hash=source.content_hash,
        created_at_ms=source.created_at_ms,
    )


def source_from_row(row: SourceRow) -> Source:
    what = f"sources[{row.source_id}]"
    try:
        metadata = tuple(sorted(json.loads(row.metadata).items()))
    except (TypeError, ValueError) as exc:
        raise _loss(what, f"metadata does not parse ({exc})") from exc
    expected = source_record_hash(row.kind, row.uri, row.media_type, row.content, metadata)
    if expected != row.content_hash or not row.source_id.endswith(row.content_hash[:32]):
        raise _loss(what, "record does not match content_hash")
    return Source(
        row.source_id,
        row.kind,
        row.uri,
        row.media_type,
        bytes(row.content),
        metadata,
        row.content_hash,
        row.created_at_ms,
    )


# -- access tokens -------------------------------------------------------------------------------


def token_to_row(token: AccessToken) -> AccessTokenRow:
    return AccessTokenRow(
        token.token_id,
        token.name,
        token.scope.value,
        canonical_json(list(token.memories)).decode("utf-8"),
        token.secret_hash,
        token.created_at_ms,
        token.expires_at_ms,
        token.revoked_at_ms,
    )


def token_from_row(row: AccessTokenRow) -> AccessToken:
    """A stored token; a row that is not one fails closed (DataLossError names it)."""
    what = f"access_tokens[{row.token_id}]"
    try:
        memories = json.loads(row.memories)
        if not isinstance(memories, list) or not all(isinstance(m, str) for m in memories):
            raise ValueError("memories is not a list of ids")
        scope = Scope(row.scope)
    except ValueError as error:
        raise _loss(what, str(error)) from error
    return AccessToken(
        token_id=row.token_id,
        name=row.name,
        scope=scope,
        memories=tuple(memories),
        secret_hash=row.secret_hash,
        created_at_ms=int(row.created_at_ms),
        expires_at_ms=None if row.expires_at_ms is None else int(row.expires_at_ms),
        revoked_at_ms=None if row.revoked_at_ms is None else int(row.revoked_at_ms),
    )
