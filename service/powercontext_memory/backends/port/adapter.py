"""A database adapter: transactions composed of the per-concern interfaces of this package.

Adapters do CRUD, head CAS, schema, isolation and their search dialect. They exchange plain
rows (rows.py); parsing, hashing and every domain check happen once, in backends/database.py.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol

from .audit import AuditReads
from .catalog import CatalogReads, CatalogWrites
from .credentials import CredentialReads, CredentialWrites
from .projection import ProjectionReads, ProjectionWrites
from .request_log import RequestLogReads, RequestLogWrites
from .revisions import RevisionReads, RevisionWrites
from .settings import SettingsReads, SettingsWrites
from .sources import SourceReads, SourceWrites


class SnapshotMovedError(Exception):
    """An optimistic read (StorageAdapter.read) needed a second statement, and inside the
    snapshot begun for it the first statement no longer gives the answer it gave alone: a
    commit landed in between. Nothing read so far belongs to that snapshot; read again."""


class HotReads(
    RevisionReads,
    CatalogReads,
    SourceReads,
    ProjectionReads,
    CredentialReads,
    RequestLogReads,
    SettingsReads,
    Protocol,
):
    """The reads that serve requests (search, writes, history, context, auth): each is bounded
    by what one request touches. Every method reads; none writes."""


class ReadTransaction(HotReads, AuditReads, Protocol):
    """A consistent snapshot offering both kinds of reads (every adapter implements both)."""


class WriteTransaction(
    ReadTransaction,
    RevisionWrites,
    CatalogWrites,
    SourceWrites,
    ProjectionWrites,
    CredentialWrites,
    RequestLogWrites,
    SettingsWrites,
    Protocol,
):
    """One serialized write transaction; committed on clean exit, rolled back on error."""


class StorageAdapter(Protocol):
    """A database. `write()` transactions are serialized by the caller."""

    name: str
    location: str
    # True when read transactions also implement NativeVectorSearch: the vector channel then
    # asks the engine's index, and this process keeps no vectors, only their completeness.
    native_vector_search: bool
    # What its database driver raises: these, raised directly or as the cause of a domain
    # error (an unreachable OceanBase), are reported as database errors.
    driver_errors: tuple[type[Exception], ...]
    # The bound in seconds on each database call and each wait for a connection (None:
    # unbounded, offline commands); past it the call fails with UNAVAILABLE DATABASE_TIMEOUT
    # (backends/timeouts.py) and the connection it used is discarded.
    timeout: float | None

    @property
    def engine_version(self) -> str: ...

    @property
    def fts_problem(self) -> str:
        """Why full text failed the adapter's start-up probe ("" when it works)."""
        ...

    @property
    def vector_problem(self) -> str:
        """Why vectors failed the adapter's start-up probe ("" when they work)."""
        ...

    def read(self, *, optimistic: bool = False) -> AbstractAsyncContextManager[ReadTransaction]:
        """A consistent snapshot. `optimistic`: an adapter whose transaction costs round trips
        may run the first statement alone (its own snapshot) and begin the transaction only
        when a second statement follows, re-running the first inside it; if that answer
        differs, the second statement raises SnapshotMovedError. A read of one statement then
        costs one round trip. Sound only where equal first answers mean equal states: the heads
        (each names its revision, and all else a search reads is keyed on revisions)."""
        ...

    def write(self) -> AbstractAsyncContextManager[WriteTransaction]: ...

    async def close(self) -> None: ...
