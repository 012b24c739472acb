"""How the store enters adapter transactions: one writer at a time, failures reported."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Any, Generic, TypeVar

from .port import ReadTransaction, StorageAdapter
from .read_session import ReadSession
from .revision_cache import RevisionCache
from .timeouts import bounded
from .version_cache import VersionCache

T = TypeVar("T")


class WriterLock:
    """The lock that serializes this process's write transactions, waited for at most the
    adapter's timeout (a writer stuck on a frozen database must not queue the others forever)."""

    def __init__(self, adapter: StorageAdapter) -> None:
        self._adapter = adapter
        self._lock = asyncio.Lock()

    async def __aenter__(self) -> None:
        adapter = self._adapter
        async with bounded(adapter.timeout, adapter.location, what="kept its writer busy"):
            await self._lock.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self._lock.release()


class Reported(Generic[T]):
    """`transaction`, each exception that leaves it reported (`report`) before it propagates.
    A class rather than a generator-based context manager: every call goes through one."""

    __slots__ = ("_transaction", "_report")

    def __init__(
        self, transaction: AbstractAsyncContextManager[T], report: Callable[[Exception], None]
    ) -> None:
        self._transaction = transaction
        self._report = report

    async def __aenter__(self) -> T:
        try:
            return await self._transaction.__aenter__()
        except Exception as error:
            self._report(error)
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        try:
            suppressed = await self._transaction.__aexit__(exc_type, exc, tb)
        except Exception as error:  # the transaction's own ending failed, or re-raised
            self._report(error)
            raise
        if isinstance(exc, Exception) and not suppressed:
            self._report(exc)
        return suppressed


class ReadScope:
    """A reported read transaction, entered as the ReadSession over it."""

    __slots__ = ("_reported", "_cache", "_versions")

    def __init__(
        self,
        transaction: AbstractAsyncContextManager[ReadTransaction],
        report: Callable[[Exception], None],
        cache: RevisionCache,
        versions: VersionCache,
    ) -> None:
        self._reported = Reported(transaction, report)
        self._cache = cache
        self._versions = versions

    async def __aenter__(self) -> ReadSession:
        return ReadSession(await self._reported.__aenter__(), self._cache, self._versions)

    async def __aexit__(self, *exc: Any) -> bool | None:
        return await self._reported.__aexit__(*exc)


def driver_error(
    error: BaseException, driver_errors: tuple[type[Exception], ...]
) -> Exception | None:
    """The driver's exception behind `error`: itself, or the cause a domain error names."""
    for candidate in (error, error.__cause__):
        if isinstance(candidate, driver_errors):
            return candidate
    return None
