"""Reads (and the one insert) whose SQL is the same on every engine, written once.

Adapters inherit these and supply two primitives: `_all(sql, params)` and
`_all_chunked(sql, items, *prefix)` (for `IN ({marks})` lists). Statements use `?`
placeholders; an adapter whose driver spells them otherwise translates in its `_all`.
Reads of a few rows by key go through `_point` and `_point_chunked`, which are `_all` and
`_all_chunked` unless an adapter can run such reads more cheaply (SQLite: without a hop to
its connection's thread).
What differs between engines (full text, vectors, metadata tables) stays in the adapters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from ..domain.models import MEMORY_FAMILY
from .port import (
    AccessTokenRow,
    ChangesRow,
    EntryVersionRow,
    HeadCondition,
    HeadKindRow,
    HeadProjectionRow,
    ManifestPieceRow,
    MemoryHeadRow,
    MemoryLabelRow,
    RevisionRow,
    SourceLinkRow,
    SourceRow,
    VersionMetadataRow,
    WriteRequestRow,
    columns,
)

VERSION_INSERT = (
    f"INSERT INTO memory_entry_versions ({columns(EntryVersionRow)}) "
    f"VALUES ({', '.join('?' * len(fields(EntryVersionRow)))})"
)
REVISION_COLUMNS = columns(RevisionRow)
CHANGES_COLUMNS = columns(ChangesRow)
VERSION_COLUMNS = columns(EntryVersionRow)
SOURCE_COLUMNS = columns(SourceRow)
SOURCE_LINK_COLUMNS = columns(SourceLinkRow)
HEAD_COLUMNS = columns(HeadProjectionRow, 5)  # without the vector fields and the metadata
HEAD_METADATA_COLUMNS = "kind, description, tags"
ACCESS_TOKEN_COLUMNS = columns(AccessTokenRow)
ACCESS_TOKEN_INSERT = (
    f"INSERT INTO access_tokens ({ACCESS_TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
WRITE_REQUEST_COLUMNS = columns(WriteRequestRow)
LABEL_COLUMNS = ", ".join(f"l.{c}" for c in columns(MemoryLabelRow).split(", "))
ID_CHUNK = 500  # ids per IN (...) list of the reads that chunk by hand
POINT_REVISIONS = 8


def condition_sql(condition: HeadCondition | None, alias: str) -> tuple[str, list[str]]:
    """ " AND ..." conditions on memory_entry_heads (`alias` "h." or "") for a filtered read.

    A tag is an exact substring test on the delimited form (INSTR, the same on both engines;
    LIKE would read % and _ in a tag as wildcards). OceanBase compares in the table's binary
    collation, SQLite always byte for byte: composed and decomposed forms stay distinct."""
    if condition is None:
        return "", []
    sql = ""
    params: list[str] = []
    if condition.kinds:
        sql += f" AND {alias}kind IN ({','.join('?' * len(condition.kinds))})"
        params.extend(condition.kinds)
    if condition.tag_needles:
        joiner = " AND " if condition.all_tags else " OR "
        tests = joiner.join(f"INSTR({alias}tags, ?) > 0" for _ in condition.tag_needles)
        sql += f" AND ({tests})"
        params.extend(condition.tag_needles)
    return sql, params


class PortableReads:
    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        raise NotImplementedError

    async def _all_chunked(self, sql: str, items: Sequence[Any], *prefix: Any) -> list[Any]:
        raise NotImplementedError

    async def _point(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._all(sql, params)

    async def _point_chunked(self, sql: str, items: Sequence[Any]) -> list[Any]:
        return await self._all_chunked(sql, items)

    def _heads_hint(self, heads: str, joined: str = "") -> str:
        """The optimizer hint, placed after SELECT, of a read of some memories' rows of
        memory_entry_heads (named `heads` in it) and of `joined`, a table read by key for each
        of them; "" for an engine whose plan needs none."""
        return ""

    async def head_revisions(self, artifact_ids: Sequence[str]) -> dict[str, int]:
        rows = await self._point_chunked(
            "SELECT artifact_id, revision FROM artifact_heads WHERE artifact_id IN ({marks})",
            list(artifact_ids),
        )
        return {a: int(r) for a, r in rows}

    async def revision_row(self, artifact_id: str, revision: int) -> RevisionRow | None:
        rows = await self._point(
            f"SELECT {REVISION_COLUMNS} FROM artifact_revisions "
            "WHERE artifact_id = ? AND revision = ?",
            (artifact_id, revision),
        )
        return RevisionRow(*rows[0]) if rows else None

    async def revision_rows(self, artifact_id: str, first: int, last: int) -> list[RevisionRow]:
        rows = await self._all(
            f"SELECT {REVISION_COLUMNS} FROM artifact_revisions "
            "WHERE artifact_id = ? AND revision BETWEEN ? AND ? ORDER BY revision",
            (artifact_id, first, last),
        )
        return [RevisionRow(*r) for r in rows]

    async def lineage_rows(self, artifact_id: str) -> list[tuple[int, int, str]]:
        rows = await self._all(
            "SELECT revision, committed_at_ms, lineage FROM artifact_revisions "
            "WHERE artifact_id = ? ORDER BY revision",
            (artifact_id,),
        )
        return [(int(r[0]), int(r[1]), str(r[2])) for r in rows]

    async def changes_rows(self, artifact_id: str, first: int, last: int) -> list[ChangesRow]:
        # A few revisions (an index catching up with the head) are a point read.
        read = self._point if last - first < POINT_REVISIONS else self._all
        rows = await read(
            f"SELECT {CHANGES_COLUMNS} FROM artifact_revisions "
            "WHERE artifact_id = ? AND revision BETWEEN ? AND ? ORDER BY revision",
            (artifact_id, first, last),
        )
        return [ChangesRow(*r) for r in rows]

    async def revisions_without_changes(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        artifact_id, revision = after or ("", 0)
        rows = await self._all(
            "SELECT artifact_id, revision FROM artifact_revisions WHERE changes IS NULL "
            "AND (artifact_id > ? OR (artifact_id = ? AND revision > ?)) "
            "ORDER BY artifact_id, revision LIMIT ?",
            (artifact_id, artifact_id, revision, limit),
        )
        return [(str(a), int(r)) for a, r in rows]

    async def revisions_with_full_content(
        self, after: tuple[str, int] | None, limit: int
    ) -> list[tuple[str, int]]:
        artifact_id, revision = after or ("", 0)
        rows = await self._all(
            "SELECT artifact_id, revision FROM artifact_revisions WHERE manifest_root IS NULL "
            "AND (artifact_id > ? OR (artifact_id = ? AND revision > ?)) "
            "ORDER BY artifact_id, revision LIMIT ?",
            (artifact_id, artifact_id, revision, limit),
        )
        return [(str(a), int(r)) for a, r in rows]

    async def manifest_piece_rows(self, keys: Sequence[str]) -> list[ManifestPieceRow]:
        rows = await self._all_chunked(
            "SELECT piece_key, body FROM manifest_pieces WHERE piece_key IN ({marks})",
            list(keys),
        )
        return [ManifestPieceRow(str(k), str(b)) for k, b in rows]

    async def entry_version_rows(self, version_ids: Sequence[str]) -> list[EntryVersionRow]:
        rows = await self._point_chunked(
            f"SELECT {VERSION_COLUMNS} FROM memory_entry_versions "
            "WHERE entry_version_id IN ({marks})",
            list(version_ids),
        )
        return [EntryVersionRow(*r) for r in rows]

    async def all_entry_version_rows(self, artifact_id: str) -> list[EntryVersionRow]:
        rows = await self._all(
            f"SELECT {VERSION_COLUMNS} FROM memory_entry_versions "
            "WHERE memory_artifact_id = ? ORDER BY entry_id, version",
            (artifact_id,),
        )
        return [EntryVersionRow(*r) for r in rows]

    async def source_rows(self, source_ids: Sequence[str]) -> list[SourceRow]:
        rows = await self._point_chunked(
            f"SELECT {SOURCE_COLUMNS} FROM sources WHERE source_id IN ({{marks}})",
            list(source_ids),
        )
        return [SourceRow(r[0], r[1], r[2], r[3], bytes(r[4]), r[5], r[6], r[7]) for r in rows]

    async def all_source_ids(self) -> list[str]:
        return [r[0] for r in await self._all("SELECT source_id FROM sources ORDER BY source_id")]

    async def source_links(
        self, source_ids: Sequence[str], artifact_ids: Sequence[str]
    ) -> dict[str, int]:
        if not source_ids or not artifact_ids:
            return {}
        memories = list(dict.fromkeys(artifact_ids))
        rows = await self._all_chunked(
            "SELECT source_id, MIN(recorded_at_ms) FROM memory_sources "
            f"WHERE memory_artifact_id IN ({', '.join('?' * len(memories))}) "
            "AND source_id IN ({marks}) GROUP BY source_id",
            list(dict.fromkeys(source_ids)),
            *memories,
        )
        return {str(source_id): int(at) for source_id, at in rows}

    async def source_link_rows(self, artifact_id: str) -> list[SourceLinkRow]:
        rows = await self._all(
            f"SELECT {SOURCE_LINK_COLUMNS} FROM memory_sources "
            "WHERE memory_artifact_id = ? ORDER BY source_id",
            (artifact_id,),
        )
        return [SourceLinkRow(*r) for r in rows]

    async def access_token_row(self, token_id: str) -> AccessTokenRow | None:
        rows = await self._point(
            f"SELECT {ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE token_id = ?", (token_id,)
        )
        return AccessTokenRow(*rows[0]) if rows else None

    async def access_token_rows(self) -> list[AccessTokenRow]:
        rows = await self._all(
            f"SELECT {ACCESS_TOKEN_COLUMNS} FROM access_tokens ORDER BY created_at_ms, token_id"
        )
        return [AccessTokenRow(*r) for r in rows]

    async def memory_head_rows(
        self, after: str, limit: int, within: Sequence[str] | None
    ) -> list[MemoryHeadRow]:
        sql = (
            "SELECT h.artifact_id, h.revision, r.committed_at_ms, r.lineage, f.committed_at_ms "
            "FROM artifact_heads h "
            "JOIN artifact_revisions r "
            "ON r.artifact_id = h.artifact_id AND r.revision = h.revision "
            "JOIN artifact_revisions f ON f.artifact_id = h.artifact_id AND f.revision = 1 "
            "WHERE r.family = ? AND h.artifact_id > ?"
        )
        params: list[Any] = [MEMORY_FAMILY, after]
        if within is not None:
            if not within:
                return []
            sql += f" AND h.artifact_id IN ({','.join('?' * len(within))})"
            params.extend(within)
        rows = await self._all(sql + " ORDER BY h.artifact_id LIMIT ?", [*params, limit])
        return [MemoryHeadRow(str(a), int(r), int(c), str(lin), int(f)) for a, r, c, lin, f in rows]

    async def memory_label_rows(self, artifact_ids: Sequence[str]) -> list[MemoryLabelRow]:
        rows = await self._all_chunked(
            f"SELECT {LABEL_COLUMNS} FROM memory_labels l "
            "WHERE l.memory_artifact_id IN ({marks}) "
            "AND l.label_version = (SELECT MAX(m.label_version) FROM memory_labels m "
            "WHERE m.memory_artifact_id = l.memory_artifact_id)",
            list(artifact_ids),
        )
        return [MemoryLabelRow(str(a), int(v), str(t), int(s)) for a, v, t, s in rows]

    async def memory_label_history(self, artifact_id: str) -> list[MemoryLabelRow]:
        rows = await self._all(
            f"SELECT {LABEL_COLUMNS} FROM memory_labels l "
            "WHERE l.memory_artifact_id = ? ORDER BY l.label_version",
            (artifact_id,),
        )
        return [MemoryLabelRow(str(a), int(v), str(t), int(s)) for a, v, t, s in rows]

    async def artifact_ids(self) -> list[str]:
        rows = await self._all("SELECT artifact_id FROM artifact_heads ORDER BY artifact_id")
        return [r[0] for r in rows]

    async def head_projection_rows(self, artifact_id: str) -> list[HeadProjectionRow]:
        return await self.head_text_rows(artifact_id, None)

    async def head_text_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[HeadProjectionRow]:
        select = (
            f"SELECT {self._heads_hint('memory_entry_heads')}{HEAD_COLUMNS}, "
            f"{HEAD_METADATA_COLUMNS} FROM memory_entry_heads WHERE memory_artifact_id = ?"
        )
        rows: list[Any] = []
        if entry_ids is None:
            sql = select
            params: list[Any] = [artifact_id]
            if after is not None:
                sql += " AND entry_id > ?"
                params.append(after)
            sql += " ORDER BY entry_id"
            if limit is not None:
                sql += " LIMIT ?"
                params.append(limit)
            rows = await self._all(sql, params)
        else:
            ids = list(entry_ids)
            for start in range(0, len(ids), ID_CHUNK):
                chunk = ids[start : start + ID_CHUNK]
                rows.extend(
                    await self._all(
                        f"{select} AND entry_id IN ({','.join('?' * len(chunk))})",
                        (artifact_id, *chunk),
                    )
                )
        return [
            HeadProjectionRow(a, e, v, h, t, kind=k, description=d, tags=g)
            for a, e, v, h, t, k, d, g in rows
        ]

    async def head_rows_of_kinds(
        self,
        artifact_ids: Sequence[str],
        kinds: Sequence[str],
        entry_ids: Sequence[str] | None = None,
    ) -> list[HeadKindRow]:
        """The projection's kind narrows the rows read (so only those are joined); the
        version's kind decides. A projection row whose kind is wrong is left out, never
        taken in."""
        kind_marks = ",".join("?" * len(kinds))
        sql = (
            f"SELECT {self._heads_hint('h', 'v')}h.memory_artifact_id, h.entry_id, "
            "h.entry_version_id, h.entry_content_hash, v.kind, v.created_in_revision "
            "FROM memory_entry_heads h "
            "JOIN memory_entry_versions v ON v.entry_version_id = h.entry_version_id "
            f"WHERE h.memory_artifact_id IN ({','.join('?' * len(artifact_ids))}) "
            f"AND h.kind IN ({kind_marks}) AND v.kind IN ({kind_marks})"
        )
        if entry_ids is None:
            rows = await self._all(sql, (*artifact_ids, *kinds, *kinds))
        else:
            [artifact_id] = artifact_ids
            rows = await self._all_chunked(
                sql + " AND h.entry_id IN ({marks})", list(entry_ids), artifact_id, *kinds, *kinds
            )
        return [HeadKindRow(a, e, v, h, k, int(r)) for a, e, v, h, k, r in rows]

    async def eligible_entry_ids(
        self, artifact_ids: Sequence[str], condition: HeadCondition
    ) -> set[tuple[str, str]]:
        where, params = condition_sql(condition, "")
        rows = await self._all(  # a search names at most 32 memories
            f"SELECT {self._heads_hint('memory_entry_heads')}memory_artifact_id, entry_id "
            "FROM memory_entry_heads "
            f"WHERE memory_artifact_id IN ({','.join('?' * len(artifact_ids))}){where}",
            (*artifact_ids, *params),
        )
        return {(str(a), str(e)) for a, e in rows}

    async def version_metadata_rows(self, version_ids: Sequence[str]) -> list[VersionMetadataRow]:
        rows = await self._point_chunked(
            "SELECT entry_version_id, entry_id, kind, description, tags "
            "FROM memory_entry_versions WHERE entry_version_id IN ({marks})",
            list(version_ids),
        )
        return [VersionMetadataRow(*r) for r in rows]

    async def write_request_row(self, caller_key: str, request_id: str) -> WriteRequestRow | None:
        rows = await self._point(
            f"SELECT {WRITE_REQUEST_COLUMNS} FROM write_requests "
            "WHERE caller_key = ? AND request_id = ?",
            (caller_key, request_id),
        )
        return WriteRequestRow(*rows[0]) if rows else None
