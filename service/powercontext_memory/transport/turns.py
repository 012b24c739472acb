"""Changes messages are written one at a time, streams taking turns, so streams cannot starve
the other calls.

Every stream message costs the event loop a decode, an encode, a hand-off to gRPC and a resume
on completion, so history replays pushing as fast as they can keep one task ready each, and a
GetMemory then waits behind all of them at each of its awaits. Here streams wait for their turn
in a FIFO queue, parked, and a unary call waits behind at most one stream step; one write at a
time rather than several keeps the other calls' p99 lowest while streams move as many messages
per second, the event loop being the limit either way (measured by `make bench`,
bench/history.py; figures in docs/performance.md, History replay under load).

A write that gRPC's flow control holds back (a client that reads slowly, or not at all) keeps
the turn only for `lease` seconds, then waits on without it: a slow client never blocks the
others, and still holds at most the one message in flight.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

DEFAULT_WIDTH = 1  # messages in flight across all streams
DEFAULT_LEASE = 0.01  # seconds: a write open to the client's window completes in well under


class WriteTurns:
    def __init__(self, width: int = DEFAULT_WIDTH, lease: float = DEFAULT_LEASE) -> None:
        self._slots = asyncio.Semaphore(width)
        self.lease = lease

    async def write(self, context: grpc.aio.ServicerContext, message: Any) -> None:
        """Wait for a turn, write, and give the turn back when the write is done or the
        lease is over, whichever comes first."""
        await self._slots.acquire()
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                self._slots.release()

        lease = asyncio.get_running_loop().call_later(self.lease, give_back)
        try:
            await context.write(message)
        except Exception:
            # A client that cancels while a message is in flight fails the write with grpc's
            # ExecuteBatchError: that is the client leaving (CANCELLED), not a server bug.
            if context.cancelled():
                raise asyncio.CancelledError from None
            raise
        finally:
            lease.cancel()
            give_back()
