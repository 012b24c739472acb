"""Embedded SQLite adapter: storage primitives only (the interface: backends/port/).

One writer connection and a small pool of reader connections, each bound to its own thread
(sqlite connections are not shared across threads). WAL lets readers keep a consistent
snapshot while a writer holds `BEGIN IMMEDIATE`. Extension-capable SQLite comes from sqlean.py
because the standard library build here cannot load extensions (needed for sqlite-vec).

storage.py           SQLiteStorage: opens the connections, hands out read and write transactions
connection.py        a connection bound to one thread, its point reads and its timeout
configuration.py     the pragmas and extension every connection is opened with
schema.py            schema.sql applied by the writer, columns added since, backfills
statements.py        helpers every module runs its statements through
transaction_base.py  a transaction's primitives: BEGIN on the first call, queued writes
transaction.py       the transaction composed of the per-concern modules below
revisions.py         revisions, manifest pieces, entry versions, the head CAS
sources.py           sources and their links to memories
projection.py        the head projection and its full-text reads (FTS5)
fts.py               MATCH expressions
vectors.py           the vector projection (sqlite-vec)
settings.py          the embedding profile and schema_meta values
credentials.py       access tokens and signing keys
request_log.py       write request ids and their outcomes
"""

from __future__ import annotations

from .fts import fts_match_expression
from .storage import SQLiteStorage

__all__ = ["SQLiteStorage", "fts_match_expression"]
