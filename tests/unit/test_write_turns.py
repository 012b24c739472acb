"""WriteTurns: a write that fails because the client left is a cancellation, not a bug.

The in-flight race (a client cancelling while grpc sends a follow message) is rare over a real
connection (tests/e2e/test_tracing.py meets it now and then), so the two outcomes are pinned
here with a stand-in context: grpc's own ServicerContext cannot be built outside a call.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from powercontext_memory.transport.turns import WriteTurns


class FailingWriteContext:
    """Stand-in for grpc.aio.ServicerContext: `write` fails, `cancelled` says whether the
    client had left."""

    def __init__(self, cancelled: bool) -> None:
        self._cancelled = cancelled

    async def write(self, message: Any) -> None:
        raise RuntimeError('Failed "execute_batch"')

    def cancelled(self) -> bool:
        return self._cancelled


async def test_a_failed_write_after_the_client_left_is_a_cancellation() -> None:
    turns = WriteTurns()
    with pytest.raises(asyncio.CancelledError):
        await turns.write(FailingWriteContext(cancelled=True), object())  # type: ignore[arg-type]
    # The turn was given back: the next write gets it at once.
    with pytest.raises(RuntimeError):
        await asyncio.wait_for(
            turns.write(FailingWriteContext(cancelled=False), object()),  # type: ignore[arg-type]
            1,
        )
