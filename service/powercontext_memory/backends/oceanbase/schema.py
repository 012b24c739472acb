"""The OceanBase schema on open: schema.sql, its version check, and what databases created by
earlier releases are given (added columns, the memory token, head kinds)."""

from __future__ import annotations

import logging
from importlib import resources
from typing import Any

from asyncmy.errors import MySQLError

from ...domain.analyzer import ANALYZER_VERSION, OLDER_ANALYZERS
from ...domain.lifecycle import indexed_text
from . import fts_tokens

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
VECTOR_INDEX = "vidx_memory_entry_heads_embedding"
HEADS_BY_ENTRY = "uk_memory_entry_heads_entry"  # (memory_artifact_id, entry_id)
_DUPLICATE_COLUMN = 1060


async def prepare(cur: Any) -> int | None:
    """Create what is missing and check the versions; the vector dimension (None: no profile)."""
    schema = resources.files(__package__).joinpath("schema.sql").read_text("utf-8")
    for statement in schema.split("\n;\n"):
        if statement.strip():
            await cur.execute(statement)
    await cur.execute("SELECT meta_key, meta_value FROM schema_meta")
    meta = dict(await cur.fetchall())
    expected = {"schema_version": SCHEMA_VERSION, "analyzer": ANALYZER_VERSION}
    if not meta:
        for key, value in expected.items():
            await cur.execute(
                "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (%s, %s)",
                (key, value),
            )
    else:
        if meta.get("analyzer") in OLDER_ANALYZERS:
            await _reindex_full_text(cur)
            meta["analyzer"] = ANALYZER_VERSION
        for key, value in expected.items():
            if meta.get(key) != value:
                raise RuntimeError(
                    f"database {key} is {meta.get(key)!r}, this server needs "
                    f"{value!r}: run the offline migration first"
                )
    await _add_missing_columns(cur)
    await _add_memory_tokens(cur)
    await _backfill_head_kinds(cur)
    return await _vector_dimension(cur)


# Columns added to tables after databases were first created with them: a database created
# before gets them on open (nullable; the shared backfill fills them). Adding a nullable column
# at the end is an online, instant DDL on OceanBase 4.x.
ADDED_COLUMNS = (
    ("artifact_revisions", "changes", "LONGTEXT"),
    ("artifact_revisions", "changes_hash", "CHAR(64)"),
    ("artifact_revisions", "manifest_root", "LONGTEXT"),
    ("memory_entry_versions", "description", "TEXT"),
    ("memory_entry_versions", "tags", "TEXT"),
    ("memory_entry_heads", "kind", "VARCHAR(64) COLLATE utf8mb4_bin NOT NULL DEFAULT ''"),
    ("memory_entry_heads", "description", "VARCHAR(1024) COLLATE utf8mb4_bin"),
    ("memory_entry_heads", "tags", "VARCHAR(4096) COLLATE utf8mb4_bin NOT NULL DEFAULT ''"),
)


async def _add_missing_columns(cur: Any) -> None:
    for table, column, declaration in ADDED_COLUMNS:
        await cur.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_schema = DATABASE() "
            "AND table_name = %s AND column_name = %s",
            (table, column),
        )
        if await cur.fetchone() is None:
            try:
                await cur.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            except MySQLError as error:  # another server opening the database added it first
                if not (error.args and error.args[0] == _DUPLICATE_COLUMN):
                    raise


# Rows indexed before the memory token led fulltext_tokens (fts_tokens.encode_row) get it on
# open, one UPDATE per memory; a row already starting with a memory token is left alone, so a
# second server opening the database at the same time changes nothing twice.
FULLTEXT_LAYOUT_KEY = "fulltext_layout"
FULLTEXT_LAYOUT = "memory-token-v1"


async def _add_memory_tokens(cur: Any) -> None:
    await cur.execute("SELECT 1 FROM schema_meta WHERE meta_key = %s", (FULLTEXT_LAYOUT_KEY,))
    if await cur.fetchone() is not None:
        return
    await cur.execute("SELECT DISTINCT memory_artifact_id FROM memory_entry_heads")
    for (artifact_id,) in await cur.fetchall():
        token = fts_tokens.memory_token(artifact_id)
        await cur.execute(
            "UPDATE memory_entry_heads SET fulltext_tokens = CASE WHEN fulltext_tokens = '' "
            "THEN %s ELSE CONCAT(%s, ' ', fulltext_tokens) END "
            "WHERE memory_artifact_id = %s AND fulltext_tokens NOT LIKE %s",
            (token, token, artifact_id, "m\\_%"),  # LIKE pattern: starts with "m_"
        )
    await cur.execute(
        "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (%s, %s)",
        (FULLTEXT_LAYOUT_KEY, FULLTEXT_LAYOUT),
    )


async def _reindex_full_text(cur: Any) -> None:
    """A database indexed by an older analyzer: every head row's searchable text and index
    tokens again from its entry version, with this analyzer, then the version recorded. A crash
    before the version is recorded leaves it older, and the next open (or a second server
    opening at once) writes the same values again."""
    await cur.execute(
        "SELECT h.memory_artifact_id, h.entry_id, v.text, v.description "
        "FROM memory_entry_heads h JOIN memory_entry_versions v "
        "ON v.entry_version_id = h.entry_version_id"
    )
    rows = [
        (text, fts_tokens.encode_row(artifact_id, text), artifact_id, entry_id)
        for artifact_id, entry_id, version_text, description in await cur.fetchall()
        for text in (indexed_text(version_text, description),)
    ]
    await cur.executemany(
        "UPDATE memory_entry_heads SET searchable_text = %s, fulltext_tokens = %s "
        "WHERE memory_artifact_id = %s AND entry_id = %s",
        rows,
    )
    await cur.execute(
        "UPDATE schema_meta SET meta_value = %s WHERE meta_key = 'analyzer'", (ANALYZER_VERSION,)
    )
    logger.info(
        "full-text index: %d head rows re-indexed by analyzer %s", len(rows), ANALYZER_VERSION
    )


# Head rows projected before the heads held their version's metadata get its kind on open
# (description and tags stay empty: those versions have none); recorded in schema_meta, and a
# second server doing the same at once only rewrites the same values.
HEAD_METADATA_KEY = "head_metadata"
HEAD_METADATA = "kind-description-tags-v1"


async def _backfill_head_kinds(cur: Any) -> None:
    await cur.execute("SELECT 1 FROM schema_meta WHERE meta_key = %s", (HEAD_METADATA_KEY,))
    if await cur.fetchone() is not None:
        return
    await cur.execute(
        "UPDATE memory_entry_heads h JOIN memory_entry_versions v "
        "ON v.entry_version_id = h.entry_version_id SET h.kind = v.kind WHERE h.kind = ''"
    )
    await cur.execute(
        "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (%s, %s)",
        (HEAD_METADATA_KEY, HEAD_METADATA),
    )


async def _vector_dimension(cur: Any) -> int | None:
    """The dimension of memory_entry_heads.embedding, or None while no profile is fixed."""
    await cur.execute(
        "SELECT column_type FROM information_schema.columns WHERE table_schema = DATABASE() "
        "AND table_name = 'memory_entry_heads' AND column_name = 'embedding'"
    )
    row = await cur.fetchone()
    if row is None:
        return None
    text = str(row[0]).lower()
    digits = text[text.find("(") + 1 : text.find(")")]
    return int(digits) if digits.isdigit() else None
