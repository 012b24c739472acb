"""The authenticated caller of the current RPC, visible to every layer below the transport.

The transport's auth interceptor sets it (in the task that runs the call) before the servicer
runs; code that binds something to a caller — idempotency records, per-token stream limits —
reads it here instead of taking it through every signature.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Caller:
    """`key` identifies the caller for bookkeeping: the token's id, or "" when auth is off."""

    key: str
    name: str = ""


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
