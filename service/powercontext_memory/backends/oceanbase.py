"""OceanBase adapter (MySQL mode, 4.3.5 BP3+; seekdb in tests): storage primitives only.

Same SPI as SQLite (spi.py). Differences that live here and nowhere else:

* isolation: writers run READ COMMITTED (the engine default) so that the head CAS
  `UPDATE ... WHERE revision = base` sees the latest commit and reports 0 affected rows when
  another writer got there first; a concurrent insert of the same next revision is a unique
  conflict (RevisionExists). Readers run REPEATABLE READ with a consistent snapshot, so one
  read transaction sees one state, as on SQLite WAL.
* full text: FULLTEXT WITH PARSER SPACE over `fulltext_tokens` (oceanbase_tokens.py).
* vectors: a VECTOR(dim) column on memory_entry_heads with an HNSW L2 index, created when the
  embedding profile is fixed. DDL commits implicitly in MySQL mode, so it never runs inside a
  Memory commit.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from importlib import resources
from typing import Any

import asyncmy
from asyncmy.errors import IntegrityError, InterfaceError, MySQLError, OperationalError

from ..domain.analyzer import ANALYZER_VERSION
from ..domain.errors import UnavailableError
from . import oceanbase_tokens
from .oceanbase_probe import ProbeResult, probe
from .oceanbase_wire import (
    OceanBaseDsn,
    driver_sql,
    hex_literal,
    split_utf8,
    vector_bytes,
    vector_literal,
)
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
    SnapshotMovedError,
    SourceLinkRow,
    SourceRow,
    VectorCandidate,
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
from .timeouts import bounded

SCHEMA_VERSION = "1"
EMBEDDING_PROFILE_KEY = "embedding_profile"
VECTOR_INDEX = "vidx_memory_entry_heads_embedding"
HEADS_BY_ENTRY = "uk_memory_entry_heads_entry"  # (memory_artifact_id, entry_id)
FTS_OVERFETCH = 2  # rows ranked per wanted candidate when admission needs several terms
EXACT_VECTOR_ROWS = 2000  # up to this many rows a vector search measures each: exact, cheap
_CHUNK = 500
MANIFEST_PIECE_BYTES = 6 * 1024 * 1024  # hex doubles it: 12 MiB statements under 16 MiB
_DUPLICATE_KEY = 1062
_DUPLICATE_COLUMN = 1060
WRITE_TIMEOUT_US = 600 * 1_000_000


def _marks(n: int) -> str:
    return ",".join(["?"] * n)


def _chunks(items: Sequence[Any]) -> list[Sequence[Any]]:
    return [items[i : i + _CHUNK] for i in range(0, len(items), _CHUNK)]


# Client-side codes for "cannot connect" / "server gone" / "connection lost".
_CONNECTION_ERRORS = {2003, 2006, 2013, 2055}


@contextlib.contextmanager
def _connection_errors_as_unavailable(location: str) -> Iterator[None]:
    """A database that cannot be reached is UNAVAILABLE to the caller (retryable), not a bug;
    nothing was committed (a lost COMMIT is the one ambiguous case MySQL protocol has)."""
    try:
        yield
    except (OperationalError, InterfaceError, ConnectionError) as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        if isinstance(exc, OperationalError) and code not in _CONNECTION_ERRORS:
            raise
        raise UnavailableError(
            f"the OceanBase database at {location} is unreachable; retry later",
            reason="DATABASE_UNAVAILABLE",
        ) from exc


class OceanBaseStorage:
    """StorageAdapter over one OceanBase database."""

    name = "oceanbase"
    native_vector_search = True  # HNSW in the engine; see nearest_vectors
    driver_errors: tuple[type[Exception], ...] = (MySQLError, ConnectionError)

    def __init__(self, dsn: OceanBaseDsn, timeout: float | None = None) -> None:
        self.dsn = dsn
        self.location = dsn.display
        self.timeout = timeout
        self._readers: Any = None
        self._writers: Any = None
        self.vector_dimension: int | None = None
        self.probe = ProbeResult()

    @classmethod
    async def open(
        cls,
        dsn: str | OceanBaseDsn,
        *,
        readers: int = 4,
        writers: int = 2,
        timeout: float | None = None,
    ) -> OceanBaseStorage:
        """`timeout` bounds every later call (and connection wait) in seconds; a connection
        whose call timed out is closed, never reused. None: unbounded."""
        parsed = dsn if isinstance(dsn, OceanBaseDsn) else OceanBaseDsn.parse(dsn)
        storage = cls(parsed, timeout)
        common: dict[str, Any] = dict(
            host=parsed.host,
            port=parsed.port,
            user=parsed.user,
            password=parsed.password,
            db=parsed.database,
            charset="utf8mb4",
            autocommit=True,
            pool_recycle=600,
        )
        storage._writers = await asyncmy.create_pool(
            minsize=1,
            maxsize=writers,
            # Full-text and HNSW index upkeep costs milliseconds per row on this engine: a
            # 1,000-entry batch or an offline rebuild of a large memory outlasts the default
            # 10 s statement timeout.
            init_command=(
                f"SET SESSION ob_query_timeout = {WRITE_TIMEOUT_US}, "
                "SESSION transaction_isolation = 'READ-COMMITTED'"
            ),
            **common,
        )
        storage._readers = await asyncmy.create_pool(
            minsize=1,
            maxsize=readers,
            init_command="SET SESSION transaction_isolation = 'REPEATABLE-READ'",
            **common,
        )
        try:
            await storage._setup()
        except BaseException:
            await storage.close()
            raise
        return storage

    async def _setup(self) -> None:
        schema = resources.files(__package__).joinpath("oceanbase_schema.sql").read_text("utf-8")
        async with self._writers.acquire() as conn, conn.cursor() as cur:
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
                for key, value in expected.items():
                    if meta.get(key) != value:
                        raise RuntimeError(
                            f"database {key} is {meta.get(key)!r}, this server needs "
                            f"{value!r}: run the offline migration first"
                        )
            await _add_missing_columns(cur)
            await _add_memory_tokens(cur)
            await _backfill_head_kinds(cur)
            self.vector_dimension = await _vector_dimension(cur)
            self.probe = await probe(cur, self.vector_dimension)

    def within(
        self, conn: Any = None, what: str = "did not answer"
    ) -> AbstractAsyncContextManager[None]:
        """Within the timeout; on expiry `conn` (mid-protocol by then) is closed, so the pool
        drops it instead of handing it out again."""
        return bounded(
            self.timeout, self.location, what=what, on_timeout=conn.close if conn else None
        )

    @asynccontextmanager
    async def _connection(self, pool: Any) -> AsyncIterator[Any]:
        async with contextlib.AsyncExitStack() as stack:
            async with self.within(what="gave no connection"):
                conn = await stack.enter_async_context(pool.acquire())
            yield conn

    async def _rollback(self, conn: Any) -> None:
        with contextlib.suppress(MySQLError, OSError, UnavailableError):
            async with self.within(conn):
                await conn.rollback()

    @asynccontextmanager
    async def read(self, *, optimistic: bool = False) -> AsyncIterator[_OceanBaseTransaction]:
        """A consistent snapshot; `optimistic` as in spi.StorageAdapter.read. A warm search
        reads only its heads: one round trip alone, where BEGIN, the read and ROLLBACK were
        three (each a loopback send and wake-up: about half a cold search's server CPU)."""
        with _connection_errors_as_unavailable(self.location):
            async with self._connection(self._readers) as conn:
                tx = _OceanBaseTransaction(
                    self, conn, "START TRANSACTION WITH CONSISTENT SNAPSHOT", optimistic=optimistic
                )
                try:
                    yield tx
                finally:
                    if tx.begun:
                        await self._rollback(conn)

    @asynccontextmanager
    async def write(self) -> AsyncIterator[_OceanBaseTransaction]:
        with _connection_errors_as_unavailable(self.location):
            async with self._connection(self._writers) as conn:
                tx = _OceanBaseTransaction(self, conn, "BEGIN")
                try:
                    yield tx
                except BaseException:
                    if tx.begun:
                        await self._rollback(conn)
                    raise
                if tx.begun:
                    async with self.within(conn):
                        await conn.commit()

    @property
    def engine_version(self) -> str:
        return self.probe.engine_version

    @property
    def fts_problem(self) -> str:
        return self.probe.fts_problem

    @property
    def vector_problem(self) -> str:
        return self.probe.vector_problem

    async def close(self) -> None:
        for pool in (self._readers, self._writers):
            if pool is not None:
                pool.close()
                await pool.wait_closed()
        self._readers = self._writers = None


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


# Rows indexed before the memory token led fulltext_tokens (oceanbase_tokens.encode_row) get
# it on open, one UPDATE per memory; a row already starting with a memory token is left alone,
# so a second server opening the database at the same time changes nothing twice.
FULLTEXT_LAYOUT_KEY = "fulltext_layout"
FULLTEXT_LAYOUT = "memory-token-v1"


async def _add_memory_tokens(cur: Any) -> None:
    await cur.execute("SELECT 1 FROM schema_meta WHERE meta_key = %s", (FULLTEXT_LAYOUT_KEY,))
    if await cur.fetchone() is not None:
        return
    await cur.execute("SELECT DISTINCT memory_artifact_id FROM memory_entry_heads")
    for (artifact_id,) in await cur.fetchall():
        token = oceanbase_tokens.memory_token(artifact_id)
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


class _OceanBaseTransaction(PortableReads):
    """Read and write primitives on one pooled connection; BEGIN rides with the first call."""

    def __init__(
        self, storage: OceanBaseStorage, conn: Any, begin: str, *, optimistic: bool = False
    ) -> None:
        self._storage = storage
        self._conn = conn
        self._begin = begin
        self.begun = False
        self._optimistic = optimistic
        # An optimistic read's first statement, run alone: (sql, params, rows) until it begins.
        self._alone: tuple[str, tuple[Any, ...], list[tuple[Any, ...]]] | None = None

    async def _cursor(self) -> Any:
        cur = self._conn.cursor()
        if not self.begun:
            self.begun = True
            async with self._storage.within(self._conn):
                await cur.execute(self._begin)
            if self._alone is not None:
                await self._confirm_alone(cur)
        return cur

    async def _confirm_alone(self, cur: Any) -> None:
        """The statement run alone answers the same inside the snapshot, so everything read
        belongs to it; else a commit came in between (SnapshotMovedError)."""
        assert self._alone is not None
        sql, params, rows = self._alone
        async with self._storage.within(self._conn):
            await cur.execute(driver_sql(sql), params)
            again = list(await cur.fetchall())
        if again != rows:
            raise SnapshotMovedError("a commit landed between an optimistic read's statements")

    async def _all(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        if self._optimistic and not self.begun and self._alone is None:
            # Autocommit: the statement is its own snapshot, and no ROLLBACK is owed for it.
            async with self._conn.cursor() as cur, self._storage.within(self._conn):
                await cur.execute(driver_sql(sql), tuple(params))
                rows = list(await cur.fetchall())
            self._alone = (sql, tuple(params), rows)
            return rows
        async with await self._cursor() as cur, self._storage.within(self._conn):
            await cur.execute(driver_sql(sql), tuple(params))
            return list(await cur.fetchall())

    async def _exec(self, sql: str, params: Sequence[Any] = ()) -> int:
        async with await self._cursor() as cur, self._storage.within(self._conn):
            return int(await cur.execute(driver_sql(sql), tuple(params)))

    async def _all_chunked(self, sql: str, items: Sequence[Any], *prefix: Any) -> list[Any]:
        out: list[Any] = []
        for chunk in _chunks(items):
            out.extend(await self._all(sql.format(marks=_marks(len(chunk))), (*prefix, *chunk)))
        return out

    # -- reads ----------------------------------------------------------------------------------

    def _heads_hint(self, heads: str, joined: str = "") -> str:
        """Through the (memory, entry) index, a joined table by key per row. The engine's
        statistics trail a growing table (they are gathered in a nightly window): planned
        with a young database's, a read of one memory's heads scanned every memory's rows.
        PrepareContext's rules at 1,000 entries among 12,000 took 17–19 ms so, 3–8 ms hinted;
        a filtered search's eligible rows and a memory's vector rows scanned the same way."""
        hint = f"INDEX({heads} {HEADS_BY_ENTRY})"
        if joined:
            hint = f"LEADING({heads} {joined}) USE_NL({joined}) {hint}"
        return f"/*+ {hint} */ "

    async def existing_revisions(self, refs: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        found: set[tuple[str, int]] = set()
        for artifact_id, revision in refs:
            if await self._all(
                "SELECT 1 FROM artifact_revisions WHERE artifact_id = ? AND revision = ?",
                (artifact_id, revision),
            ):
                found.add((artifact_id, revision))
        return found

    async def fts_candidates(
        self,
        artifact_ids: Sequence[str],
        terms: Sequence[str],
        min_matches: int,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[HeadProjectionRow]:
        """MATCH ... AGAINST in boolean mode, best first by the engine's relevance.

        The memory filter is the memories' tokens inside the indexed text (oceanbase_tokens),
        never a column condition: with one, the engine reads back and sorts every matching
        row before its top-k; without, the top-k runs inside the full-text index. "At least
        k distinct terms" is pushed down as an OR of ANDs when few enough combinations spell
        it; otherwise the engine ranks FTS_OVERFETCH times more rows and those admission would
        refuse are dropped before the cut (rows matching more terms rank higher).
        """
        memories = set(artifact_ids)
        if not memories or not terms:
            return []
        query, exact = oceanbase_tokens.boolean_query(sorted(memories), terms, min_matches)
        # Kind and tag filters are column conditions: the engine then reads back the matches
        # before its top-k (the cost of a filtered search), but the window holds only
        # eligible rows.
        where, params = condition_sql(condition, "")
        rows = await self._all(
            f"SELECT {HEAD_COLUMNS}, MATCH (fulltext_tokens) AGAINST (? IN BOOLEAN MODE) "
            "AS relevance FROM memory_entry_heads "
            f"WHERE MATCH (fulltext_tokens) AGAINST (? IN BOOLEAN MODE){where} "
            "ORDER BY relevance DESC LIMIT ?",
            (query, query, *params, limit if exact else limit * FTS_OVERFETCH),
        )
        wanted = set(terms)
        return [
            HeadProjectionRow(*r[:5])
            for r in rows
            # the memory check is a guard: the index already filtered by memory token
            if r[0] in memories and len(wanted.intersection(str(r[4]).split(" "))) >= min_matches
        ][:limit]

    async def fts_rows(self, artifact_id: str) -> list[tuple[str, str]]:
        """The analyzer text each row's index tokens stand for (its own tokens if they do not)."""
        rows = await self._all(
            f"SELECT {self._heads_hint('memory_entry_heads')}entry_id, searchable_text, "
            "fulltext_tokens FROM memory_entry_heads WHERE memory_artifact_id = ? "
            "ORDER BY entry_id",
            (artifact_id,),
        )
        return [
            (e, text if oceanbase_tokens.encode_row(artifact_id, text) == tokens else tokens)
            for e, text, tokens in rows
        ]

    # -- writes ---------------------------------------------------------------------------------

    async def insert_revision(self, row: RevisionRow) -> None:
        """The manifest is the one large value of a commit (MBs for a big memory). It travels
        as hex literals, which the client builds in C, instead of through the driver's string
        escaping (3x slower end to end at 2 MB, measured), and in pieces that each fit the
        engine's 16 MiB default max_allowed_packet; the row is invisible until COMMIT."""
        pieces = split_utf8(row.content.encode("utf-8"), MANIFEST_PIECE_BYTES)
        try:
            await self._exec(
                f"INSERT INTO artifact_revisions ({REVISION_COLUMNS}) "
                f"VALUES (?, ?, ?, {hex_literal(pieces[0])}, ?, ?, ?, ?, ?, ?)",
                (
                    row.artifact_id,
                    row.revision,
                    row.family,
                    row.content_hash,
                    row.lineage,
                    row.committed_at_ms,
                    row.changes,
                    row.changes_hash,
                    row.manifest_root,
                ),
            )
        except IntegrityError as exc:
            if exc.args and exc.args[0] == _DUPLICATE_KEY:
                raise RevisionExistsError(row.artifact_id, row.revision) from exc
            raise
        for piece in pieces[1:]:
            await self._exec(
                f"UPDATE artifact_revisions SET content = CONCAT(content, {hex_literal(piece)}) "
                "WHERE artifact_id = ? AND revision = ?",
                (row.artifact_id, row.revision),
            )

    async def advance_head(self, artifact_id: str, base_revision: int, next_revision: int) -> bool:
        if base_revision == 0:
            affected = await self._exec(
                "INSERT IGNORE INTO artifact_heads (artifact_id, revision) VALUES (?, ?)",
                (artifact_id, next_revision),
            )
        else:
            affected = await self._exec(
                "UPDATE artifact_heads SET revision = ? WHERE artifact_id = ? AND revision = ?",
                (next_revision, artifact_id, base_revision),
            )
        return affected == 1

    async def set_revision_changes(
        self, artifact_id: str, revision: int, changes: str, changes_hash: str
    ) -> None:
        await self._exec(
            "UPDATE artifact_revisions SET changes = ?, changes_hash = ? "
            "WHERE artifact_id = ? AND revision = ? AND changes IS NULL",
            (changes, changes_hash, artifact_id, revision),
        )

    async def insert_manifest_pieces(self, rows: Sequence[ManifestPieceRow]) -> None:
        """One statement per few MB; bodies travel as hex literals (see insert_revision),
        keys are hex digests."""
        batch: list[str] = []
        size = 0
        for row in rows:
            batch.append(f"('{row.piece_key}', {hex_literal(row.body.encode('utf-8'))})")
            size += len(batch[-1])
            if size > MANIFEST_PIECE_BYTES:
                await self._insert_pieces(batch)
                batch, size = [], 0
        if batch:
            await self._insert_pieces(batch)

    async def _insert_pieces(self, literals: list[str]) -> None:
        await self._exec(
            f"INSERT IGNORE INTO manifest_pieces (piece_key, body) VALUES {', '.join(literals)}",
            (),
        )

    async def set_revision_pieces(self, artifact_id: str, revision: int, root: str) -> None:
        await self._exec(
            "UPDATE artifact_revisions SET content = '', manifest_root = ? "
            "WHERE artifact_id = ? AND revision = ? AND manifest_root IS NULL",
            (root, artifact_id, revision),
        )

    async def insert_entry_versions(self, rows: Sequence[EntryVersionRow]) -> None:
        if not rows:
            return
        async with await self._cursor() as cur, self._storage.within(self._conn):
            await cur.executemany(
                driver_sql(VERSION_INSERT),
                [values(r) for r in rows],
            )

    async def upsert_projection(self, revision: int, rows: Sequence[HeadProjectionRow]) -> None:
        """One statement per chunk: a new row is inserted, an existing one (same memory and
        entry) rewritten in place, its vector replaced or cleared with it."""
        if not rows:
            return
        with_vector = self._storage.vector_dimension is not None
        columns = (
            "memory_artifact_id, projected_in_revision, entry_id, entry_version_id, "
            "entry_content_hash, searchable_text, fulltext_tokens, embedding_content_hash, "
            "kind, description, tags" + (", embedding" if with_vector else "")
        )
        width = 12 if with_vector else 11
        updates = ", ".join(
            f"{c} = VALUES({c})"
            for c in [
                "projected_in_revision",
                "entry_version_id",
                "entry_content_hash",
                "searchable_text",
                "fulltext_tokens",
                "embedding_content_hash",
                "kind",
                "description",
                "tags",
                *(["embedding"] if with_vector else []),
            ]
        )
        for chunk in _chunks(list(rows)):
            params: list[Any] = []
            for r in chunk:
                if r.embedding is not None and not with_vector:
                    raise RuntimeError("a vector was written before the profile was fixed")
                params.extend(
                    [
                        r.memory_artifact_id,
                        revision,
                        r.entry_id,
                        r.entry_version_id,
                        r.entry_content_hash,
                        r.searchable_text,
                        oceanbase_tokens.encode_row(r.memory_artifact_id, r.searchable_text),
                        r.embedding_content_hash if r.embedding is not None else None,
                        r.kind,
                        r.description,
                        r.tags,
                    ]
                )
                if with_vector:
                    params.append(vector_literal(r.embedding) if r.embedding is not None else None)
            values = ", ".join(["(" + _marks(width) + ")"] * len(chunk))
            await self._exec(
                f"INSERT INTO memory_entry_heads ({columns}) VALUES {values} "
                f"ON DUPLICATE KEY UPDATE {updates}",
                params,
            )

    async def remove_projection(self, artifact_id: str, entry_ids: Sequence[str]) -> None:
        for chunk in _chunks(list(entry_ids)):
            await self._exec(
                "DELETE FROM memory_entry_heads WHERE memory_artifact_id = ? "
                f"AND entry_id IN ({_marks(len(chunk))})",
                (artifact_id, *chunk),
            )

    async def clear_projection(self, artifact_id: str) -> None:
        await self._exec(
            "DELETE FROM memory_entry_heads WHERE memory_artifact_id = ?", (artifact_id,)
        )

    async def insert_source(self, row: SourceRow) -> bool:
        affected = await self._exec(
            f"INSERT IGNORE INTO sources ({SOURCE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            values(row),
        )
        return affected == 1

    async def insert_source_links(self, rows: Sequence[SourceLinkRow]) -> None:
        for chunk in _chunks(list(rows)):
            await self._exec(
                f"INSERT IGNORE INTO memory_sources ({SOURCE_LINK_COLUMNS}) VALUES "
                + ", ".join(["(?, ?, ?)"] * len(chunk)),
                [v for r in chunk for v in values(r)],
            )

    async def meta_value(self, key: str) -> str | None:
        rows = await self._all("SELECT meta_value FROM schema_meta WHERE meta_key = ?", (key,))
        return str(rows[0][0]) if rows else None

    async def insert_meta_value(self, key: str, value: str) -> bool:
        affected = await self._exec(
            "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (?, ?)", (key, value)
        )
        return affected == 1

    # -- access tokens --------------------------------------------------------------------------

    async def insert_access_token(self, row: AccessTokenRow) -> None:
        await self._exec(ACCESS_TOKEN_INSERT, values(row))

    # -- signing keys (security/signing.py) ---------------------------------------------------

    async def signing_key_rows(self) -> list[tuple[str, str]]:
        rows = await self._all(
            "SELECT meta_key, meta_value FROM schema_meta WHERE meta_key >= ? AND meta_key < ?",
            SIGNING_KEY_RANGE,
        )
        return [(str(k)[len(SIGNING_KEY_PREFIX) :], str(v)) for k, v in rows]

    async def insert_signing_key(self, key_id: str, secret_hex: str) -> bool:
        affected = await self._exec(
            "INSERT IGNORE INTO schema_meta (meta_key, meta_value) VALUES (?, ?)",
            (SIGNING_KEY_PREFIX + key_id, secret_hex),
        )
        return affected == 1

    async def delete_signing_keys(self, key_ids: Sequence[str]) -> None:
        for key_id in key_ids:
            await self._exec(
                "DELETE FROM schema_meta WHERE meta_key = ?", (SIGNING_KEY_PREFIX + key_id,)
            )

    async def revoke_access_token(self, token_id: str, revoked_at_ms: int) -> bool:
        affected = await self._exec(
            "UPDATE access_tokens SET revoked_at_ms = ? "
            "WHERE token_id = ? AND revoked_at_ms IS NULL",
            (revoked_at_ms, token_id),
        )
        return affected == 1

    # -- idempotent writes ----------------------------------------------------------------------

    async def insert_write_request(self, row: WriteRequestRow) -> bool:
        """INSERT IGNORE waits on the row lock of a concurrent transaction recording the same
        key, then ignores the row if that one committed."""
        affected = await self._exec(
            f"INSERT IGNORE INTO write_requests ({WRITE_REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, ?)",
            values(row),
        )
        return affected == 1

    async def delete_write_requests(self, created_before_ms: int, limit: int) -> int:
        return await self._exec(
            "DELETE FROM write_requests WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?",
            (created_before_ms, limit),
        )

    # -- vector projection ------------------------------------------------------------------

    async def embedding_profile_json(self) -> str | None:
        rows = await self._all(
            "SELECT meta_value FROM schema_meta WHERE meta_key = ?", (EMBEDDING_PROFILE_KEY,)
        )
        return str(rows[0][0]) if rows else None

    async def set_embedding_profile(self, profile_json: str, dimension: int) -> None:
        """Offline: replace the vector column and its HNSW index with ones of this dimension.

        DDL commits on its own in MySQL mode, so the steps are ordered to be re-runnable: the
        profile is removed first and written last, once its column and index exist.
        """
        if not 0 < dimension <= 16000:
            raise ValueError(f"unsupported vector dimension {dimension}")
        await self._exec("DELETE FROM schema_meta WHERE meta_key = ?", (EMBEDDING_PROFILE_KEY,))
        await self._conn.commit()
        if self._storage.vector_dimension is not None:
            with contextlib.suppress(asyncmy.errors.OperationalError):
                await self._exec(f"DROP INDEX {VECTOR_INDEX} ON memory_entry_heads")
            await self._exec("ALTER TABLE memory_entry_heads DROP COLUMN embedding")
            self._storage.vector_dimension = None
        await self._exec("UPDATE memory_entry_heads SET embedding_content_hash = NULL")
        await self._exec(
            f"ALTER TABLE memory_entry_heads ADD COLUMN embedding VECTOR({int(dimension)})"
        )
        await self._exec(
            f"CREATE VECTOR INDEX {VECTOR_INDEX} ON memory_entry_heads (embedding) "
            "WITH (distance=L2, type=hnsw)"
        )
        self._storage.vector_dimension = int(dimension)
        await self._exec(
            "INSERT INTO schema_meta (meta_key, meta_value) VALUES (?, ?)",
            (EMBEDDING_PROFILE_KEY, profile_json),
        )
        async with self._conn.cursor() as cur:
            self._storage.probe = await probe(cur, self._storage.vector_dimension)

    async def vector_rows(
        self,
        artifact_id: str,
        entry_ids: Sequence[str] | None,
        *,
        with_vectors: bool = True,
        after: str | None = None,
        limit: int | None = None,
    ) -> list[VectorRow]:
        """Head rows with their vectors. The vector's metadata is the head row itself: a
        vector is bound to it by embedding_content_hash (RFC NULL/hash condition)."""
        if self._storage.vector_dimension is None:
            vector = "NULL, 0"
        else:
            vector = ("embedding" if with_vectors else "NULL") + ", embedding IS NOT NULL"
        sql = (
            f"SELECT {self._heads_hint('memory_entry_heads')}entry_id, entry_version_id, "
            f"entry_content_hash, embedding_content_hash, {vector} FROM memory_entry_heads "
            "WHERE memory_artifact_id = ?"
        )
        if entry_ids is None:
            params: list[Any] = [artifact_id]
            if after is not None:
                sql += " AND entry_id > ?"
                params.append(after)
            if limit is not None:
                sql += " ORDER BY entry_id LIMIT ?"
                params.append(limit)
            rows = await self._all(sql, params)
        else:
            rows = await self._all_chunked(
                sql + " AND entry_id IN ({marks})", list(entry_ids), artifact_id
            )
        out = []
        for entry_id, version_id, content_hash, embedding_hash, embedding, present in rows:
            bound = embedding_hash is not None
            out.append(
                VectorRow(
                    entry_id,
                    version_id,
                    content_hash,
                    version_id if bound else None,
                    content_hash if bound else None,
                    embedding_hash,
                    vector_bytes(embedding),
                    bool(present),
                )
            )
        return out

    async def nearest_vectors(
        self,
        artifact_ids: Sequence[str],
        query: bytes,
        limit: int,
        condition: HeadCondition | None = None,
    ) -> list[VectorCandidate]:
        """The memories' nearest rows: measured one by one when they are few, else by HNSW.

        Left to itself the engine pre-filters: it reads every row of the memories through
        their index and measures each, an exact scan that grows with the memories (~0.8 s at
        100,000 rows). Up to EXACT_VECTOR_ROWS rows that is cheap and exact, so it stays; above,
        the index hint makes the engine walk the HNSW graph and skip rows of other memories
        until `limit` pass (POST-ITERATIVE-FILTER in EXPLAIN): approximate, at graph cost.
        """
        if self._storage.vector_dimension is None:
            return []
        literal = vector_literal(query)
        memories = list(artifact_ids)
        marks = _marks(len(memories))
        many = await self._all(  # reads at most EXACT_VECTOR_ROWS + 1 index entries
            f"SELECT {self._heads_hint('memory_entry_heads')}1 FROM memory_entry_heads "
            f"WHERE memory_artifact_id IN ({marks}) LIMIT 1 OFFSET ?",
            (*memories, EXACT_VECTOR_ROWS),
        )
        hint = (
            f"/*+ INDEX(memory_entry_heads {VECTOR_INDEX}) */ "
            if many
            else self._heads_hint("memory_entry_heads")
        )
        where, params = condition_sql(condition, "")
        rows = await self._all(
            f"SELECT {hint}{HEAD_COLUMNS}, l2_distance(embedding, ?) AS distance "
            f"FROM memory_entry_heads WHERE memory_artifact_id IN ({marks}) "
            f"AND embedding IS NOT NULL{where} "
            "ORDER BY l2_distance(embedding, ?) APPROXIMATE LIMIT ?",
            (literal, *memories, *params, literal, limit),
        )
        return [VectorCandidate(HeadProjectionRow(*r[:5]), float(r[5])) for r in rows]
