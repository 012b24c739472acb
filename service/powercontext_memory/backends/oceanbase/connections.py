"""The connection pools of an OceanBase database, and what an unreachable one means to callers."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import asyncmy
from asyncmy.errors import InterfaceError, OperationalError

from ...domain.errors import UnavailableError
from .wire import OceanBaseDsn

# Client-side codes for "cannot connect" / "server gone" / "connection lost".
CONNECTION_ERRORS = {2003, 2006, 2013, 2055}
WRITE_TIMEOUT_US = 600 * 1_000_000


@contextlib.contextmanager
def connection_errors_as_unavailable(location: str) -> Iterator[None]:
    """A database that cannot be reached is UNAVAILABLE to the caller (retryable), not a bug;
    nothing was committed (a lost COMMIT is the one ambiguous case MySQL protocol has)."""
    try:
        yield
    except (OperationalError, InterfaceError, ConnectionError) as exc:
        code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else None
        if isinstance(exc, OperationalError) and code not in CONNECTION_ERRORS:
            raise
        raise UnavailableError(
            f"the OceanBase database at {location} is unreachable; retry later",
            reason="DATABASE_UNAVAILABLE",
        ) from exc


def _pool_settings(dsn: OceanBaseDsn) -> dict[str, Any]:
    return dict(
        host=dsn.host,
        port=dsn.port,
        user=dsn.user,
        password=dsn.password,
        db=dsn.database,
        charset="utf8mb4",
        autocommit=True,
        pool_recycle=600,
    )


async def writer_pool(dsn: OceanBaseDsn, size: int) -> Any:
    """Writers run READ COMMITTED, so the head CAS sees the latest commit."""
    return await asyncmy.create_pool(
        minsize=1,
        maxsize=size,
        # Full-text and HNSW index upkeep is slow per row on this engine: a large batch or an
        # offline rebuild of a large memory outlasts the default 10 s statement timeout.
        init_command=(
            f"SET SESSION ob_query_timeout = {WRITE_TIMEOUT_US}, "
            "SESSION transaction_isolation = 'READ-COMMITTED'"
        ),
        **_pool_settings(dsn),
    )


async def reader_pool(dsn: OceanBaseDsn, size: int) -> Any:
    """Readers run REPEATABLE READ, so one read transaction sees one snapshot."""
    return await asyncmy.create_pool(
        minsize=1,
        maxsize=size,
        init_command="SET SESSION transaction_isolation = 'REPEATABLE-READ'",
        **_pool_settings(dsn),
    )
