"""The authenticated caller of the current RPC, visible to every layer below the transport.

The transport's auth interceptor sets it (in the task that runs the call) before the servicer
runs; code that binds something to a caller — idempotency records, per-token stream limits —
reads it here instead of taking it through every signature. So does what a token limited to
some memories may see beyond the memories a request names: the sources they cite.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """`key` identifies the caller for bookkeeping: the token's id, or "" when auth is off.
    `memories` is the token's memory list (sorted; empty: every memory)."""

    key: str
    name: str = ""
    memories: tuple[str, ...] = ()

    @property
    def source_scope(self) -> tuple[str, ...] | None:
        """The memories whose sources this caller may read; None: every source."""
        return self.memories or None


ANONYMOUS = Caller("")

_current: contextvars.ContextVar[Caller] = contextvars.ContextVar(
    "powercontext_caller", default=ANONYMOUS
)


def current_caller() -> Caller:
    return _current.get()


@contextmanager
def acting_as(caller: Caller) -> Iterator[None]:
    token = _current.set(caller)
    try:
        yield
    finally:
        _current.reset(token)
