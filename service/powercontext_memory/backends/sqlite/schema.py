"""The writer's setup: schema.sql applied, columns added since, one-off backfills, version check."""

from __future__ import annotations

import logging
from importlib import resources

import sqlean

from ...domain.analyzer import ANALYZER_VERSION, OLDER_ANALYZERS
from ...domain.lifecycle import indexed_text
from .configuration import DEFAULT_BUSY_MS, WRITER_CACHE_KIB, configure
from .statements import Db, execute, fetch, roll_back_if_open

logger = logging.getLogger(__name__)

SCHEMA_VERSION = "1"
PAGE_SIZE = 32768
MIN_SQLITE = (3, 38, 0)

# Columns added to tables after databases were first created with them: a database created
# before gets them on open (nullable; the shared backfill fills them).
ADDED_COLUMNS = (
    ("artifact_revisions", "changes", "TEXT"),
    ("artifact_revisions", "changes_hash", "TEXT"),
    ("artifact_revisions", "manifest_root", "TEXT"),
    ("memory_entry_versions", "description", "TEXT"),
    ("memory_entry_versions", "tags", "TEXT"),
    ("memory_entry_heads", "kind", "TEXT NOT NULL DEFAULT ''"),
    ("memory_entry_heads", "description", "TEXT"),
    ("memory_entry_heads", "tags", "TEXT NOT NULL DEFAULT ''"),
)

# Head rows projected before the heads held their version's metadata get its kind on open
# (description and tags stay empty: those versions have none), once, recorded in schema_meta.
HEAD_METADATA_KEY = "head_metadata"
HEAD_METADATA = "kind-description-tags-v1"


def add_missing_columns(db: Db) -> None:
    for table, column, declaration in ADDED_COLUMNS:
        present = {r[1] for r in fetch(db, f"PRAGMA table_info({table})")}
        if column not in present:
            execute(db, f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def backfill_head_kinds(db: Db) -> None:
    if fetch(db, "SELECT 1 FROM schema_meta WHERE key = ?", (HEAD_METADATA_KEY,)):
        return
    execute(db, "BEGIN IMMEDIATE")
    try:
        execute(
            db,
            "UPDATE memory_entry_heads SET kind = (SELECT v.kind FROM memory_entry_versions v "
            "WHERE v.entry_version_id = memory_entry_heads.entry_version_id) WHERE kind = ''",
        )
        execute(
            db,
            "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)",
            (HEAD_METADATA_KEY, HEAD_METADATA),
        )
        execute(db, "COMMIT")
    except BaseException:
        roll_back_if_open(db)
        raise


def setup_writer(db: Db, busy_ms: int = DEFAULT_BUSY_MS) -> None:
    version = tuple(int(p) for p in sqlean.sqlite_version.split("."))
    if version < MIN_SQLITE:
        raise RuntimeError(f"SQLite {sqlean.sqlite_version} is older than 3.38.0")
    configure(db, busy_ms, WRITER_CACHE_KIB)
    # Large pages keep a big manifest row in few pages (only effective on a new file).
    db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    db.execute("PRAGMA journal_mode = WAL")
    # Checkpoints run on their own connection (storage.py), never inside a commit.
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute(f"PRAGMA journal_size_limit = {64 * 1024 * 1024}")
    schema = resources.files(__package__).joinpath("schema.sql").read_text("utf-8")
    db.executescript(schema)
    add_missing_columns(db)
    meta = dict(db.execute("SELECT key, value FROM schema_meta").fetchall())
    expected = {"schema_version": SCHEMA_VERSION, "analyzer": ANALYZER_VERSION}
    if not meta:
        db.executemany(
            "INSERT INTO schema_meta (key, value) VALUES (?, ?)",
            [*expected.items(), (HEAD_METADATA_KEY, HEAD_METADATA)],
        )
        # Relevance comes from the text alone: the memory column is there to filter, and
        # weighting it 0 also spares bm25 work for a phrase every row of a memory contains.
        db.execute(
            "INSERT INTO memory_entry_search_fts (memory_entry_search_fts, rank) "
            "VALUES ('rank', 'bm25(0.0, 1.0)')"
        )
        return
    if meta.get("analyzer") in OLDER_ANALYZERS:
        reindex_full_text(db)
        meta["analyzer"] = ANALYZER_VERSION
    for key, value in expected.items():
        if meta.get(key) != value:
            raise RuntimeError(
                f"database {key} is {meta.get(key)!r}, this server needs {value!r}: "
                "run the offline migration first"
            )
    backfill_head_kinds(db)


def reindex_full_text(db: Db) -> None:
    """A database indexed by an older analyzer: every head row's searchable text again from
    its entry version, with this analyzer, and the version recorded, in one transaction (a
    crash leaves it as it was; a second process opening it at once waits, then finds it done
    or does the same again)."""
    execute(db, "BEGIN IMMEDIATE")
    try:
        rows = fetch(
            db,
            "SELECT h.projection_id, v.text, v.description FROM memory_entry_heads h "
            "JOIN memory_entry_versions v ON v.memory_artifact_id = h.memory_artifact_id "
            "AND v.entry_id = h.entry_id AND v.entry_version_id = h.entry_version_id",
        )
        texts = [(indexed_text(text, description), pid) for pid, text, description in rows]
        db.executemany(
            "UPDATE memory_entry_heads SET searchable_text = ? WHERE projection_id = ?", texts
        ).close()
        db.executemany(
            "UPDATE memory_entry_search_fts SET searchable_text = ? WHERE rowid = ?", texts
        ).close()
        execute(db, "UPDATE schema_meta SET value = ? WHERE key = 'analyzer'", (ANALYZER_VERSION,))
        execute(db, "COMMIT")
    except BaseException:
        roll_back_if_open(db)
        raise
    logger.info(
        "full-text index: %d head rows re-indexed by analyzer %s", len(texts), ANALYZER_VERSION
    )
