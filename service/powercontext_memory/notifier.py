"""Wakes change-feed followers when a revision commits, and ends them on shutdown.

A wake-up only says "look again": followers always re-read revisions from the database in
order, so a missed or merged wake-up can delay a message but never skip or repeat one.
"""

from __future__ import annotations

import asyncio


class CommitNotifier:
    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}
        self.closed = False

    def event(self, artifact_id: str) -> asyncio.Event:
        """Take this BEFORE reading the head, so a commit in between still wakes the waiter."""
        event = self._events.get(artifact_id)
        if event is None:
            event = self._events[artifact_id] = asyncio.Event()
            if self.closed:
                event.set()
        return event

    def publish(self, artifact_id: str) -> None:
        event = self._events.pop(artifact_id, None)
        if event is not None:
            event.set()

    def close(self) -> None:
        self.closed = True
        for event in self._events.values():
            event.set()
        self._events.clear()
