"""One shared head watcher per process for every follow stream (Changes with follow).

Each followed memory has one `Watch`: the newest head this process knows and the changes of
its most recent revisions. One poll task serves them all: while anyone follows, it reads the
heads of every followed memory in one query per HEAD_POLL_INTERVAL (commits by other
processes sharing the database are seen within it), and at once when this process commits
(`publish`) or another process on this host says it committed (`wake`, through the
`CommitPeers` a server connects: commit_signal.py); when a head moved, it reads the new
revisions' changes once, for every follower.
Sharing the watcher keeps idle streams from each polling on their own, which cost CPU in
proportion to their number (docs/api.md, Changes: "One watcher per process").

A follower asks only for "what comes after my last revision" (`Watch.after`): from the
watch's recent revisions when they reach back that far, else from the database (a follower
that fell behind reads pages, like history). So a missed or merged wake-up can delay a message
but never skip, repeat or reorder one.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from .api import RevisionChanges

logger = logging.getLogger(__name__)

# How often the heads of followed memories are re-read while nothing wakes the watcher.
HEAD_POLL_INTERVAL = 1.0
# Revisions read per poll for a memory whose head moved (one history page), and changes kept
# per watched memory for its followers (whole revisions; at least the newest one).
READ_REVISIONS = 256
KEEP_CHANGES = 4096

ReadHeads = Callable[[Sequence[str]], Awaitable[dict[str, int]]]
ReadChanges = Callable[[str, int, int], Awaitable[list["RevisionChanges"]]]


class CommitPeers(Protocol):
    """The other processes serving this database, told of each commit made here."""

    def announce(self, artifact_id: str) -> None:
        """Never blocks and never raises: a hint they may miss (they poll anyway)."""


class Watch:
    """One followed memory: its known head and its most recent revisions, contiguous."""

    __slots__ = ("artifact_id", "followers", "head", "recent", "error", "_changed", "_size")

    def __init__(self, artifact_id: str) -> None:
        self.artifact_id = artifact_id
        self.followers = 0
        self.head = 0  # 0 until the first poll
        self.recent: deque[RevisionChanges] = deque()  # ascending, ending at `head`
        self.error: Exception | None = None  # the last poll's failure, until one succeeds
        self._changed = asyncio.Event()
        self._size = 0  # changes held in `recent`

    def after(self, last: int) -> list[RevisionChanges] | None:
        """The known revisions after `last`, in order; None when they are no longer (or not
        yet) held here and must be read from the database."""
        if self.head <= last:
            return []
        if not self.recent or self.recent[0].ref.revision > last + 1:
            return None
        return list(itertools.islice(self.recent, last + 1 - self.recent[0].ref.revision, None))

    async def changed(self, timeout: float) -> None:
        """Wait until the head moves, a poll fails or the watcher closes (or `timeout`).

        Callers look at the watch right before, with no await in between: a change after
        that look sets the event they wait on.
        """
        event = self._changed
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for returns normally when the
        # caller is cancelled just as the event is set (a follower woken by a poll in the same
        # loop step as its client's cancellation), and the cancelled stream waited on forever.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await event.wait()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _advance(self, head: int, fresh: list[RevisionChanges]) -> None:
        if fresh and fresh[0].ref.revision != self.head + 1:
            self.recent.clear()
            self._size = 0
        for item in fresh:
            self.recent.append(item)
            self._size += len(item.changes)
        while self._size > KEEP_CHANGES and len(self.recent) > 1:
            self._size -= len(self.recent.popleft().changes)
        self.head = head
        self.error = None
        self._wake()

    def _fail(self, error: Exception) -> None:
        self.error = error
        self._wake()


class HeadWatcher:
    """The process's watches, and the one task that polls them while anyone follows."""

    def __init__(
        self,
        read_heads: ReadHeads,
        read_changes: ReadChanges,
        *,
        interval: float = HEAD_POLL_INTERVAL,
    ) -> None:
        self._read_heads = read_heads
        self._read_changes = read_changes
        self.interval = interval
        self._watches: dict[str, Watch] = {}
        self._poke = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.peers: CommitPeers | None = None  # set by a server whose peers can be told
        self.closed = False
        self.polls = 0  # completed polls (tests and diagnostics)

    @property
    def followers(self) -> int:
        return sum(w.followers for w in self._watches.values())

    @contextlib.contextmanager
    def watching(self, artifact_id: str) -> Iterator[Watch]:
        """Follow one memory for the duration of the block."""
        watch = self._watches.get(artifact_id)
        if watch is None:
            watch = self._watches[artifact_id] = Watch(artifact_id)
            self._poke.set()  # learn its head now, not an interval later
        watch.followers += 1
        if self._task is None and not self.closed:
            self._task = asyncio.create_task(self._poll_loop(), name="head-watcher")
        try:
            yield watch
        finally:
            watch.followers -= 1
            if watch.followers == 0 and self._watches.get(artifact_id) is watch:
                del self._watches[artifact_id]

    def publish(self, artifact_id: str) -> None:
        """This process committed a revision of `artifact_id`: look now, and tell the peers."""
        self.wake(artifact_id)
        if self.peers is not None:
            try:
                self.peers.announce(artifact_id)
            except Exception as error:  # a lost hint only delays other processes' followers
                logger.warning("telling other processes of a commit failed: %s", error)

    def wake(self, artifact_id: str) -> None:
        """`artifact_id` has a new revision (committed here or by a peer): look now if anyone
        here follows it."""
        if artifact_id in self._watches:
            self._poke.set()

    def close(self) -> None:
        """Shutting down: wake every follower (they end the stream) and stop polling."""
        self.closed = True
        for watch in self._watches.values():
            watch._wake()
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _poll_loop(self) -> None:
        try:
            while self._watches and not self.closed:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.interval):  # see Watch.changed
                        await self._poke.wait()
                self._poke.clear()
                await self.poll()
        finally:
            if self._task is asyncio.current_task():
                self._task = None

    async def poll(self) -> None:
        """Read the heads of every followed memory (one query), and the new revisions of
        those that moved; wake their followers."""
        watches = list(self._watches.values())
        if not watches:
            return
        self.polls += 1
        try:
            heads = await self._read_heads([w.artifact_id for w in watches])
        except Exception as error:  # every follower ends with it, as its own read would
            logger.warning("following: reading the heads failed: %s", error)
            for watch in watches:
                watch._fail(error)
            return
        for watch in watches:
            head = heads.get(watch.artifact_id, 0)
            if head <= watch.head:
                continue
            if watch.head == 0:  # a new watch: its followers read up to here themselves
                watch._advance(head, [])
                continue
            first = max(watch.head + 1, head - READ_REVISIONS + 1)
            try:
                fresh = await self._read_changes(watch.artifact_id, first, head)
            except Exception as error:  # this memory's followers end with it
                logger.warning("following %s: %s", watch.artifact_id, error)
                watch._fail(error)
                continue
            watch._advance(head, fresh)
