"""Embedded SQLite adapter: storage primitives only (see spi.py).

One writer connection and a small pool of reader connections, each bound to its own thread
(sqlite connections are not shared across threads). WAL lets readers keep a consistent
snapshot while a writer holds `BEGIN IMMEDIATE`. Extension-capable SQLite comes from sqlean.py
because the standard library build here cannot load extensions (needed for sqlite-vec).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

import sqlean
import sqlite_vec

from ..domain.analyzer import ANALYZER_VERSION
from .spi import (
    SIGNING_KEY_PREFIX,
    SIGNING_KEY_RANGE,
    AccessTokenRow,
    EntryVersionRow,
    HeadCondition,
    HeadProjectionRow,
    ManifestPieceRow,
    RevisionExistsError,
    RevisionRow,
    SourceLinkRow,
    SourceRow,
    VectorRow,
    WriteRequestRow,
    values,
)
from .sql_reads import (
    ACCESS_TOKEN_INSERT,
    HEAD_COLUMNS,
    REVISION_COLUMNS,
    SOURCE_COLUMNS,
    SOURCE_LINK_COLUMNS,
    VERSION_INSERT,
    WRITE_REQUEST_COLUMNS,
    PortableReads,
    condition_sql,
)
from .timeouts import bounded, timed_out

SCHEMA_VERSION = "1"
PAGE_SIZE = 32768
CHECKPOINT_INTERVAL = 0.5  # seconds between WAL checkpoints while writes keep coming
MIN_SQLITE = (3, 38, 0)
_CHUNK = 500  # bound on host parameters per statement
DEFAULT_BUSY_MS = 10_000  # lock wait without a server timeout (offline commands)
# A timed-out call is interrupted this long after the lock wait (busy_timeout) would have
# ended on its own, so a plain lock wait gets SQLite's own clean SQLITE_BUSY.
INTERRUPT_GRACE = 1.0
SQLITE_BUSY = 5
POINT_READ_KEYS = 100  # more keys than this: a read that may run long, on the thread

T = TypeVar("T")
Db: TypeAlias = sqlean.Connection  # noqa: UP040 (sqlean ships no type hints)


MAX_PUSHDOWN_GROUPS = 64  # above this many term combinations, match any term and filter later


def _quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def fts_match_expression(
    artifact_ids: Sequence[str], terms: Sequence[str], min_matches: int = 1
) -> str:
    """A MATCH expression from quoted analyzer tokens; user text never reaches MATCH syntax.

    The memory filter is a column filter, so FTS5 intersects posting lists instead of ranking
    every memory's rows. When few enough, "at least min_matches distinct terms" is pushed down
    as an OR of ANDs: rows the admission rule would refuse are never ranked, and the candidate
    pool holds only admissible rows (the shared code still applies admission itself).
    """
    memories = " OR ".join(_quote(a) for a in artifact_ids)
    quoted = [_quote(t) for t in terms]
    if (
        1 < min_matches <= len(quoted)
        and math.comb(len(quoted), min_matches) <= MAX_PUSHDOWN_GROUPS
    ):
        groups = itertools.combinations(quoted, min_matches)
        text = " OR ".join("(" + " AND ".join(g) + ")" for g in groups)
    else:
        text = " OR ".join(quoted)
    return f"memory_artifact_id : ({memories}) AND searchable_text : ({text})"


def _chunks(items: Sequence[T]) -> list[Sequence[T]]:
    return [items[i : i + _CHUNK] for i in range(0, len(items), _CHUNK)]


def _marks(n: int) -> str:
    return ",".join("?" * n)


class _BoundConnection:
    """A sqlite connection living on one dedicated thread.

    With a `timeout` (the server's database timeout), lock waits end after it (busy_timeout:
    SQLITE_BUSY becomes UNAVAILABLE DATABASE_TIMEOUT), and a call still running a moment
    later is interrupted (sqlite3_interrupt) and answered the same way.

    A reader (`point_reads`) may also run a point read on the caller's thread (`run_point`):
    a hop to its thread and back costs more than the read (a cold FTS search over gRPC spent
    2.0 ms of server CPU with its two hops, 0.93 ms without). Only while nothing is queued on
    the thread (so calls keep their order), and with no lock wait: such a read gets
    SQLITE_BUSY at once, and is run again on the thread, where it may wait.
    """

    def __init__(self, path: str, *, point_reads: bool = False) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sqlite")
        self._path = path
        self._db: Db | None = None
        self.timeout: float | None = None
        self._point_reads = point_reads
        self._busy_ms = DEFAULT_BUSY_MS
        self._waits_on_locks = True  # busy_timeout as configured, not 0
        self._last: Future[Any] | None = None  # the newest call queued on the thread

    async def open(self, setup: Callable[[Db], None], busy_ms: int = DEFAULT_BUSY_MS) -> None:
        def _open() -> None:
            db = sqlean.connect(self._path, isolation_level=None, check_same_thread=False)
            setup(db)
            self._db = db

        self._busy_ms = busy_ms
        await self.run(lambda _db: None, _opening=_open)

    async def run(
        self, fn: Callable[..., T], *args: Any, _opening: Callable[[], None] | None = None
    ) -> T:
        def call() -> T:
            if _opening is not None:
                _opening()
            assert self._db is not None
            return fn(self._db, *args)

        return await self.wait(self._submit(call))

    def _submit(self, call: Callable[[], T]) -> asyncio.Future[T]:
        if not self._waits_on_locks:  # back from point reads: lock waits as configured
            self._waits_on_locks = True
            busy_ms, inner = self._busy_ms, call

            def call() -> T:
                assert self._db is not None
                _execute(self._db, f"PRAGMA busy_timeout = {busy_ms}")
                return inner()

        self._last = self._executor.submit(call)
        return asyncio.wrap_future(self._last)

    def _can_run_here(self) -> bool:
        return (
            self._point_reads and self._db is not None and (self._last is None or self._last.done())
        )

    async def run_point(self, fn: Callable[[Db], T], begin: str | None) -> T:
        """`fn` (after `begin`, when given): here when the connection is free, else queued."""
        if self._can_run_here():
            db = self._db
            assert db is not None
            if self._waits_on_locks:
                _execute(db, "PRAGMA busy_timeout = 0")
                self._waits_on_locks = False
            try:
                if begin is not None:
                    _execute(db, begin)
                return fn(db)
            except sqlean.OperationalError as error:
                if (getattr(error, "sqlite_errorcode", 0) or 0) & 0xFF != SQLITE_BUSY:
                    raise
                if begin is not None and db.in_transaction:
                    _execute(db, "ROLLBACK")  # no snapshot was taken: begin again there
        return await self.run(_begun(fn, begin))

    def end_read(self) -> None:
        """End a read transaction: here when the connection is free, else queued."""
        if self._can_run_here():
            assert self._db is not None
            _end_read(self._db)
        else:
            self._submit(functools.partial(_end_read, self._db))

    async def wait(self, work: Awaitable[T]) -> T:
        """The result of work queued on this connection, within the timeout."""
        seconds = None if self.timeout is None else self.timeout + INTERRUPT_GRACE

        def interrupt() -> None:
            if self._db is not None:
                self._db.interrupt()  # thread-safe: the running statement stops

        try:
            async with bounded(seconds, self._path, on_timeout=interrupt):
                return await work
        except sqlean.OperationalError as error:
            if self.timeout is None or getattr(error, "sqlite_errorcode", None) != SQLITE_BUSY:
                raise
            raise timed_out(
                self._path, self.timeout, "stayed locked by another connection"
            ) from error

    def submit(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Queue work without waiting: the thread runs calls in order, so later calls see it."""
        assert self._db is not None
        db = self._db
        return self._submit(lambda: fn(db, *args))

    async def close(self) -> None:
        if self._db is not None:
            await self.run(lambda db: db.close())
            self._db = None
        self._executor.shutdown(wait=True)


def _begun(fn: Callable[[Db], T], begin: str | None) -> Callable[[Db], T]:
    if begin is None:
        return fn

    def call(db: Db) -> T:
        _execute(db, begin)
        return fn(db)

    return call


# Page cache per connection, KiB. Readers serve point reads (heads, versions, pieces) and the
# indexes' one-off loads, which the OS page cache serves as well; the writer's commits touch
# more. 32 MB on each of the six connections held ~150 MB of RSS at 100,000 entries.
WRITER_CACHE_KIB = 4_000
READER_CACHE_KIB = 2_000


def _configure(db: Db, busy_ms: int = DEFAULT_BUSY_MS, cache_kib: int = READER_CACHE_KIB) -> None:
    # sqlite-vec (vec0) for the vector projection; extension loading is closed right after.
    db.enable_load_extension(True)
    try:
        sqlite_vec.load(db)
    finally:
        db.enable_load_extension(False)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
    db.execute("PRAGMA synchronous = NORMAL")
    db.execute(f"PRAGMA cache_size = -{int(cache_kib)}")


class SQLiteStorage:
    """StorageAdapter over one SQLite file."""

    name = "sqlite"
    native_vector_search = False  # vec0 is brute force; NumPy over cached vectors is faster
    driver_errors: tuple[type[Exception], ...] = (sqlean.Error,)
    engine_version = sqlean.sqlite_version
    # FTS5 and vec0 are part of this build; opening fails outright without them.
    fts_problem = ""
    vector_problem = ""

    def __init__(
        self, path: str | os.PathLike[str], readers: int = 4, timeout: float | None = None
    ) -> None:
        self.location = str(path)
        self.timeout = timeout
        self._writer = _BoundConnection(self.location)
        self._readers: list[_BoundConnection] = [
            _BoundConnection(self.location, point_reads=True) for _ in range(readers)
        ]
        self._idle: asyncio.Queue[_BoundConnection] = asyncio.Queue()
        self._checkpointer = _BoundConnection(self.location)
        self._dirty = asyncio.Event()
        self._checkpoint_task: asyncio.Task[None] | None = None

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], readers: int = 4, timeout: float | None = None
    ) -> SQLiteStorage:
        """`timeout` bounds every later call (and lock wait) in seconds; None: unbounded."""
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        storage = cls(path, readers, timeout)
        busy_ms = DEFAULT_BUSY_MS if timeout is None else int(timeout * 1000)
        await storage._writer.open(functools.partial(_setup_writer, busy_ms=busy_ms), busy_ms)
        for reader in storage._readers:
            await reader.open(functools.partial(_configure, busy_ms=busy_ms), busy_ms)
            storage._idle.put_nowait(reader)
        await storage._checkpointer.open(_configure)
        for conn in (storage._writer, *storage._readers):
            conn.timeout = timeout
        storage._checkpoint_task = asyncio.create_task(storage._checkpoint_loop())
        return storage

    def read(self, *, optimistic: bool = False) -> _Snapshot:
        """A snapshot: BEGIN rides along with the first query; ROLLBACK is queued, not awaited.
        So a read of one statement is one hop already, and `optimistic` changes nothing."""
        return _Snapshot(self)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[_SQLiteTransaction]:
        """BEGIN IMMEDIATE; COMMIT on clean exit, ROLLBACK on any exception."""
        conn = self._writer
        tx = _SQLiteTransaction(conn, "BEGIN IMMEDIATE")
        try:
            yield tx
            await tx.flush()
        except BaseException:
            await tx.settle()
            if tx.begun:
                await conn.run(_rollback)
            raise
        if tx.begun:
            await conn.run(_execute, "COMMIT")
            self._dirty.set()

    async def _checkpoint_loop(self) -> None:
        """Checkpoint the WAL off the commit path (the writer's autocheckpoint is off)."""
        while True:
            await self._dirty.wait()
            self._dirty.clear()
            await self._checkpointer.run(_execute, "PRAGMA wal_checkpoint(PASSIVE)")
            await asyncio.sleep(CHECKPOINT_INTERVAL)

    async def close(self) -> None:
        if self._checkpoint_task is not None:
            self._checkpoint_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._checkpoint_task
        await self._writer.run(_execute, "PRAGMA wal_checkpoint(TRUNCATE)")
        await self._writer.close()
        for reader in self._readers:
            await reader.close()
        await self._checkpointer.close()


VECTOR_TABLE = "memory_entry_search_vector"
EMBEDDING_PROFILE_KEY = "embedding_profile"


def _has_vector_table(db: Db) -> bool:
    return (
        db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (VECTOR_TABLE,)
        ).fetchone()
        is not None
    )


def _drop_vectors(db: Db, pids: Sequence[int]) -> None:
    for chunk in _chunks(list(pids)):
        marks = _marks(len(chunk))
        db.execute(
            f"DELETE FROM memory_entry_vector_metadata WHERE projection_id IN ({marks})", chunk
        )
        if _has_vector_table(db):
            db.execute(f"DELETE FROM {VECTOR_TABLE} WHERE rowid IN ({marks})", chunk)


def _drop_projection(db: Db, pids: Sequence[int]) -> None:
    """Remove head rows with their full-text and vector rows (virtual tables do not cascade)."""
    _drop_vectors(db, pids)
    for chunk in _chunks(list(pids)):
        marks = _marks(len(chunk))
        db.execute(f"DELETE FROM memory_entry_search_fts WHERE rowid IN ({marks})", chunk)
        db.execute(f"DELETE FROM memory_entry_heads WHERE projection_id IN ({marks})", chunk)


def _insert_vector(db: Db, pid: int, row: HeadProjectionRow) -> None:
    db.execute(
        "INSERT INTO memory_entry_vector_metadata "
        "(projection_id, entry_version_id, entry_content_hash, embedding_content_hash) "
        "VALUES (?, ?, ?, ?)",
        (pid, row.entry_version_id, row.entry_content_hash, row.embedding_content_hash),
    )
    db.execute(f"INSERT INTO {VECTOR_TABLE} (rowid, embedding) VALUES (?, ?)", (pid, row.embedding))


def _vector_row(r: Sequence[Any]) -> VectorRow:
    return VectorRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]))


def _execute(db: Db, sql: str, params: Sequence[Any] = ()) -> None:
    """Run a statement and close its cursor here, on the connection's own thread.

    A cursor must never leave its thread: one finalized later by another thread, after its
    connection closed, crashes the process.
    """
    db.execute(sql, params).close()


def _fetch(db: Db, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    cursor = db.execute(sql, params)
    try:
        return cursor.fetchall()
    finally:
        cursor.close()


def _end_read(db: Db) -> None:
    if db.in_transaction:
        _execute(db, "ROLLBACK")


def _rollback(db: Db) -> None:
    if db.in_transaction:
        _execute(db, "ROLLBACK")


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


def _add_missing_columns(db: Db) -> None:
    for table, column, declaration in ADDED_COLUMNS:
        present = {r[1] for r in _fetch(db, f"PRAGMA table_info({table})")}
        if column not in present:
            _execute(db, f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _backfill_head_kinds(db: Db) -> None:
    if _fetch(db, "SELECT 1 FROM schema_meta WHERE key = ?", (HEAD_METADATA_KEY,)):
        return
    _execute(db, "BEGIN IMMEDIATE")
    try:
        _execute(
            db,
            "UPDATE memory_entry_heads SET kind = (SELECT v.kind FROM memory_entry_versions v "
            "WHERE v.entry_version_id = memory_entry_heads.entry_version_id) WHERE kind = ''",
        )
        _execute(
            db,
            "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)",
            (HEAD_METADATA_KEY, HEAD_METADATA),
        )
        _execute(db, "COMMIT")
    except BaseException:
        _rollback(db)
        raise


def _setup_writer(db: Db, busy_ms: int = DEFAULT_BUSY_MS) -> None:
    version = tuple(int(p) for p in sqlean.sqlite_version.split("."))
    if version < MIN_SQLITE:
        raise RuntimeError(f"SQLite {sqlean.sqlite_version} is older than 3.38.0")
    _configure(db, busy_ms, WRITER_CACHE_KIB)
    # Large pages keep a big manifest row in few pages (only effective on a new file).
    db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
    db.execute("PRAGMA journal_mode = WAL")
    # Checkpoints run on their own connection (see _checkpoint_loop), never inside a commit.
    db.execute("PRAGMA wal_autocheckpoint = 0")
    db.execute(f"PRAGMA journal_size_limit = {64 * 1024 * 1024}")
    schema = resources.files(__package__).joinpath("sqlite_schema.sql").read_text("utf-8")
    db.executescript(schema)
    _add_missing_columns(db)
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
    for key, value in expected.items():
        if meta.get(key) != value:
            raise RuntimeError(
                f"database {key} is {meta.get(key)!r}, this server needs {value!r}: "
                "run the offline migration first"
            )
    _backfill_head_kinds(db)


class _Snapshot:
    """A read transaction on a free reader (waiting for one within the timeout), given back
    when the block ends. A class rather than a generator-based context manager: every search
    enters one."""

    __slots__ = ("_storage", "_conn", "_tx")

    def __init__(self, storage: SQLiteStorage) -> None:
        self._storage = storage

    async def __aenter__(self) -> _SQLiteTransaction:
        storage = self._storage
        try:
            conn = storage._idle.get_nowait()  # the common case: no timer to arm and cancel
        except asyncio.QueueEmpty:
            async with bounded(storage.timeout, storage.location, what="had no free reader"):
                conn = await storage._idle.get()
        self._conn = conn
        self._tx = _SQLiteTransaction(conn, "BEGIN")
        return self._tx

    async def __aexit__(self, *exc: object) -> None:
        if self._tx.begun:
            self._conn.end_read()
        self._storage._idle.put_nowait(self._conn)


class _SQLiteTransaction(PortableReads):
    """Read and write primitives on one connection's thread.

    Thread hops cost ~0.1 ms each, so the transaction's BEGIN rides along with its first call,
    writes that return nothing are queued without waiting (the connection thread runs calls
    in order, and `flush()` before COMMIT surfaces any error they raised), and a reader's
    point reads run without a hop when they can (`_BoundConnection.run_point`).
    """

    def __init__(self, conn: _BoundConnection, begin: str) -> None:
        self._conn = conn
        self._begin = begin
        self.begun = False
        self._pending: list[asyncio.Future[Any]] = []

    def _next_begin(self) -> str | None:
        """BEGIN for the transaction's first call, None for the others."""
        if self.begun:
            return None
        self.begun = True
        return self._begin

    def _with_begin(self, fn: Callable[[Db], T]) -> Callable[[Db], T]:
        return _begun(fn, self._next_begin())

    async def _run(self, fn: Callable[[Db], T]) -> T:
        return await self._conn.run(self._with_begin(fn))

    def _queue(self, fn: Callable[[Db], Any]) -> None:
        def call(db: Db) -> None:
            result = fn(db)
            if isinstance(result, sqlean.Cursor):
                result.close()  # cursors never leave the connection's thread

        self._pending.append(self._conn.submit(self._with_begin(call)))

    async def flush(self) -> None:
        pending, self._pending = self._pending, []
        for future in pending:
            await self._conn.wait(future)

    async def settle(self) -> None:
        """Wait for queued work without raising (the caller is already rolling back)."""
        pending, self._pending = self._pending, []
        await asyncio.gather(*pending, return_exceptions=True)

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._run(lambda db: _fetch(db, sql, params))

    async def _all_chunked(self, sql: str, items: Sequence[Any], *prefix: Any) -> list[Any]:
        """Run `sql` (with one `{marks}` placeholder list, after the `prefix` parameters) over
        chunks of items in one hop."""

        def go(db: Db) -> list[Any]:
            out: list[Any] = []
            for chunk in _chunks(items):
                statement = sql.format(marks=_marks(len(chunk)))
                out.extend(db.execute(statement, (*prefix, *chunk)).fetchall())
            return out

        return await self._run(go)

    async def _point(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return await self._conn.run_point(lambda db: _fetch(db, sql, params), self._next_begin())

    async def _point_chunked(self, sql: str, items: Sequence[Any]) -> list[Any]:
        if len(items) > POINT_READ_KEYS:
            return await self._all_chunked(sql, items)
        statement = sql.format(marks=_marks(len(items)))
        return await self._conn.run_point(
            lambda db: _fetch(db, statement, items), self._next_begin()
        )

    # -- reads ----------------------------------------------------------------------------------

    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        def go(db: Db) -> set[tuple[str, int]]:
            sql = "SELECT 1 FROM artifact_revisions WHERE artifact_id = ? AND revision = ?"
            return {ref for ref in refs if db.execute(sql, ref).fetchone()}

        return await self._run(go)

    async def fts_candidates(
        self,
        artifact_ids: Sequence[str],
        terms: Sequence[str],
        min_matches: int,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[HeadProjectionRow]:
        # Two statements in one hop: FTS5 answers "ORDER BY rank LIMIT k" on its own table
        # without sorting every match only when it is the whole query (not a joined subquery).
        expression = fts_match_expression(artifact_ids, terms, min_matches)
        if condition is not None:
            return await self._filtered_fts_candidates(expression, limit, condition)

        def go(db: Db) -> list[Any]:
            # Unranked first: when every match fits in the window, FTS5's bm25 (most of a
            # search's time: ~2 us per match) is not needed, the caller orders the window.
            matches = db.execute(
                "SELECT rowid FROM memory_entry_search_fts "
                "WHERE memory_entry_search_fts MATCH ? LIMIT ?",
                (expression, limit + 1),
            ).fetchall()
            if len(matches) > limit:
                matches = db.execute(
                    "SELECT rowid FROM memory_entry_search_fts "
                    "WHERE memory_entry_search_fts MATCH ? ORDER BY rank LIMIT ?",
                    (expression, limit),
                ).fetchall()
            ids = [r[0] for r in matches]
            by_id = {
                r[0]: r[1:]
                for r in db.execute(
                    f"SELECT projection_id, {HEAD_COLUMNS} FROM memory_entry_heads "
                    f"WHERE projection_id IN ({_marks(len(ids))})",
                    ids,
                ).fetchall()
            }
            return [by_id[i] for i in ids if i in by_id]

        return [HeadProjectionRow(*r) for r in await self._run(go)]

    async def _filtered_fts_candidates(
        self, expression: str, limit: int, condition: HeadCondition
    ) -> list[HeadProjectionRow]:
        """Kind and tag conditions joined into the match, so the window holds only eligible
        rows (FTS5 then ranks every match of the join before the cut: filters cost that)."""
        where, params = condition_sql(condition, "h.")
        columns = ", ".join(f"h.{c.strip()}" for c in HEAD_COLUMNS.split(","))
        rows = await self._all(
            f"SELECT {columns} FROM memory_entry_search_fts f "
            "JOIN memory_entry_heads h ON h.projection_id = f.rowid "
            f"WHERE memory_entry_search_fts MATCH ?{where} ORDER BY f.rank LIMIT ?",
            (expression, *params, limit),
        )
        return [HeadProjectionRow(*r) for r in rows]

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT h.entry_id, f.searchable_text FROM memory_entry_heads h "
            "LEFT JOIN memory_entry_search_fts f ON f.rowid = h.projection_id "
            "WHERE h.memory_artifact_id = ? ORDER BY h.entry_id",
            (artifact_id,),
        )
        return [(e, t if t is not None else "") for e, t in rows]

    # -- writes ---------------------------------------------------------------------------------

    async def insert_revision(self, row: RevisionRow) -> None:
        params = values(row)

        def go(db: Db) -> None:
            try:
                _execute(
                    db,
                    f"INSERT INTO artifact_revisions ({REVISION_COLUMNS}) "
                    f"VALUES ({_marks(len(params))})",
                    params,
                )
            except sqlean.IntegrityError as exc:
                if "artifact_revisions" in str(exc):
                    raise RevisionExistsError(row.artifact_id, row.revision) from exc
                raise

        self._queue(go)  # a conflict surfaces at the next flush (advance_head flushes first)

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        def go(db: Db) -> bool:
            if base_revision == 0:
                cur = db.execute(
                    "INSERT OR IGNORE INTO artifact_heads (artifact_id, revision) VALUES (?, ?)",
                    (artifact_id, next_revision),
                )
            else:
                cur = db.execute(
                    "UPDATE artifact_heads SET revision = ? WHERE artifact_id = ? AND revision = ?",
                    (next_revision, artifact_id, base_revision),
                )
            return cur.rowcount == 1

        await self.flush()  # a failed queued insert must surface before the CAS result
        return await self._run(go)

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        self._queue(
            lambda db: db.execute(
                "UPDATE artifact_revisions SET changes = ?, changes_hash = ? "
                "WHERE artifact_id = ? AND revision = ? AND changes IS NULL",
                (changes, changes_hash, artifact_id, revision),
            )
        )

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        if not rows:
            return
        self._queue(
            lambda db: db.executemany(
                "INSERT OR IGNORE INTO manifest_pieces (piece_key, body) VALUES (?, ?)",
                [(r.piece_key, r.body) for r in rows],
            )
        )

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        self._queue(
            lambda db: db.execute(
                "UPDATE artifact_revisions SET content = '', manifest_root = ? "
                "WHERE artifact_id = ? AND revision = ? AND manifest_root IS NULL",
                (root, artifact_id, revision),
            )
        )

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None:
        if not rows:
            return
        self._queue(
            lambda db: db.executemany(
                VERSION_INSERT,
                [values(r) for r in rows],
            )
        )

    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        def go(db: Db) -> None:
            for r in rows:
                found = db.execute(
                    "SELECT projection_id FROM memory_entry_heads "
                    "WHERE memory_artifact_id = ? AND entry_id = ?",
                    (r.memory_artifact_id, r.entry_id),
                ).fetchone()
                if found:
                    pid = found[0]
                    db.execute(
                        "UPDATE memory_entry_heads SET projected_in_revision = ?, "
                        "entry_version_id = ?, entry_content_hash = ?, searchable_text = ?, "
                        "kind = ?, description = ?, tags = ? "
                        "WHERE projection_id = ?",
                        (
                            revision,
                            r.entry_version_id,
                            r.entry_content_hash,
                            r.searchable_text,
                            r.kind,
                            r.description,
                            r.tags,
                            pid,
                        ),
                    )
                    db.execute("DELETE FROM memory_entry_search_fts WHERE rowid = ?", (pid,))
                    _drop_vectors(db, [pid])
                else:
                    pid = db.execute(
                        "INSERT INTO memory_entry_heads "
                        "(memory_artifact_id, projected_in_revision, entry_id, "
                        "entry_version_id, entry_content_hash, searchable_text, "
                        "kind, description, tags) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (
                            r.memory_artifact_id,
                            revision,
                            r.entry_id,
                            r.entry_version_id,
                            r.entry_content_hash,
                            r.searchable_text,
                            r.kind,
                            r.description,
                            r.tags,
                        ),
                    ).lastrowid
                db.execute(
                    "INSERT INTO memory_entry_search_fts "
                    "(rowid, memory_artifact_id, searchable_text) VALUES (?, ?, ?)",
                    (pid, r.memory_artifact_id, r.searchable_text),
                )
                if r.embedding is not None:
                    _insert_vector(db, pid, r)

        if rows:
            self._queue(go)

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None:
        def go(db: Db) -> None:
            for chunk in _chunks(list(entry_ids)):
                params = (artifact_id, *chunk)
                where = f"memory_artifact_id = ? AND entry_id IN ({_marks(len(chunk))})"
                pids = [
                    r[0]
                    for r in db.execute(
                        f"SELECT projection_id FROM memory_entry_heads WHERE {where}", params
                    ).fetchall()
                ]
                _drop_projection(db, pids)

        self._queue(go)

    async def clear_projection(self, artifact_id: str) -> None:
        def go(db: Db) -> None:
            pids = [
                r[0]
                for r in db.execute(
                    "SELECT projection_id FROM memory_entry_heads WHERE memory_artifact_id = ?",
                    (artifact_id,),
                ).fetchall()
            ]
            _drop_projection(db, pids)

        self._queue(go)

    # -- vector projection ------------------------------------------------------------------

    async def embedding_profile_json(self) -> str | None:
        rows = await self._all(
            "SELECT value FROM schema_meta WHERE key = ?", (EMBEDDING_PROFILE_KEY,)
        )
        return rows[0][0] if rows else None

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Fix the profile: (re)create an empty vector table of its dimension (offline only)."""

        def go(db: Db) -> None:
            db.execute("DELETE FROM memory_entry_vector_metadata")
            db.execute(f"DROP TABLE IF EXISTS {VECTOR_TABLE}")
            db.execute(
                f"CREATE VIRTUAL TABLE {VECTOR_TABLE} USING vec0(embedding float[{int(dimension)}])"
            )
            db.execute(
                "INSERT OR REPLACE INTO schema_meta (key, value) VALUES (?, ?)",
                (EMBEDDING_PROFILE_KEY, profile_json),
            )

        self._queue(go)

    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        def go(db: Db) -> list[VectorRow]:
            has_vectors = _has_vector_table(db)
            embedding = "v.embedding" if with_vectors else "NULL"
            vector = f"{embedding}, v.rowid IS NOT NULL" if has_vectors else "NULL, 0"
            join = (
                f"LEFT JOIN {VECTOR_TABLE} v ON v.rowid = h.projection_id " if has_vectors else ""
            )
            sql = (
                "SELECT h.entry_id, h.entry_version_id, h.entry_content_hash, "
                "m.entry_version_id, m.entry_content_hash, m.embedding_content_hash, "
                f"{vector} FROM memory_entry_heads h "
                "LEFT JOIN memory_entry_vector_metadata m ON m.projection_id = h.projection_id "
                f"{join}WHERE h.memory_artifact_id = ?"
            )
            if entry_ids is None:
                params: list[Any] = [artifact_id]
                if after is not None:
                    sql += " AND h.entry_id > ?"
                    params.append(after)
                if limit is not None:
                    sql += " ORDER BY h.entry_id LIMIT ?"
                    params.append(limit)
                return [_vector_row(r) for r in db.execute(sql, params).fetchall()]
            out: list[VectorRow] = []
            for chunk in _chunks(list(entry_ids)):
                out.extend(
                    _vector_row(r)
                    for r in db.execute(
                        f"{sql} AND h.entry_id IN ({_marks(len(chunk))})", (artifact_id, *chunk)
                    ).fetchall()
                )
            return out

        return await self._run(go)

    async def insert_source(self, row: SourceRow) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                f"INSERT OR IGNORE INTO sources ({SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                values(row),
            )
            return cur.rowcount == 1

        return await self._run(go)

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        if rows:
            self._queue(
                lambda db: db.executemany(
                    f"INSERT OR IGNORE INTO memory_sources ({SOURCE_LINK_COLUMNS}) "
                    "VALUES (?, ?, ?)",
                    [values(r) for r in rows],
                )
            )

    async def meta_value(self, key: str) -> str | None:
        rows = await self._all("SELECT value FROM schema_meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def insert_meta_value(self, key: str, value: str) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)", (key, value)
            )
            return cur.rowcount == 1

        return await self._run(go)

    # -- access tokens --------------------------------------------------------------------------

    async def insert_access_token(self, row: AccessTokenRow) -> None:
        await self._run(lambda db: _execute(db, ACCESS_TOKEN_INSERT, values(row)))

    # -- signing keys (security/signing.py) ---------------------------------------------------

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT key, value FROM schema_meta WHERE key >= ? AND key < ?",
            SIGNING_KEY_RANGE,
        )
        return [(str(k)[len(SIGNING_KEY_PREFIX) :], str(v)) for k, v in rows]

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "INSERT OR IGNORE INTO schema_meta (key, value) VALUES (?, ?)",
                (SIGNING_KEY_PREFIX + key_id, secret_hex),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None:
        def go(db: Db) -> None:
            db.executemany(
                "DELETE FROM schema_meta WHERE key = ?",
                [(SIGNING_KEY_PREFIX + k,) for k in key_ids],
            )

        await self._run(go)

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                "UPDATE access_tokens SET revoked_at_ms = ? "
                "WHERE token_id = ? AND revoked_at_ms IS NULL",
                (revoked_at_ms, token_id),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    # -- idempotent writes ----------------------------------------------------------------------

    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        def go(db: Db) -> bool:
            cur = db.execute(
                f"INSERT OR IGNORE INTO write_requests ({WRITE_REQUEST_COLUMNS}) "
                "VALUES (?, ?, ?, ?, ?)",
                values(row),
            )
            try:
                return cur.rowcount == 1
            finally:
                cur.close()

        return await self._run(go)

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        def go(db: Db) -> int:
            cur = db.execute(
                "DELETE FROM write_requests WHERE rowid IN (SELECT rowid FROM write_requests "
                "WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?)",
                (created_before_ms, limit),
            )
            try:
                return int(cur.rowcount)
            finally:
                cur.close()

        return await self._run(go)
