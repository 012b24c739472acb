"""A follower after its history: every later revision once, in order, and progress when idle.

The process's HeadWatcher (notifier.py) learns new heads; this loop only asks its Watch for
what comes after the last revision it delivered, or reads the database when the watch no
longer holds that far back (a slow follower). Delivery therefore never depends on wake-ups:
a revision is sent when it is the next one, and only then.
"""

from __future__ import annotations

import copy
import time
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass

from .api import RevisionChanges
from .domain.errors import UnavailableError
from .domain.models import ArtifactRef
from .notifier import HeadWatcher, Watch

History = Callable[[str, int, int], AsyncGenerator[RevisionChanges, None]]


@dataclass(frozen=True, slots=True)
class Progress:
    """Everything up to `head` has been delivered on this feed."""

    head: ArtifactRef


async def after(
    watcher: HeadWatcher,
    watch: Watch,
    history: History,
    last: int,
    progress_interval: float,
) -> AsyncGenerator[RevisionChanges | Progress, None]:
    """Revisions after `last` as they commit; Progress after `progress_interval` idle."""
    artifact_id = watch.artifact_id
    idle_since = time.monotonic()
    while True:
        if watcher.closed:
            raise UnavailableError(
                f"server is shutting down; resume with since_revision = {last} on another "
                "connection",
                reason="SHUTTING_DOWN",
                metadata={"artifactId": artifact_id, "resumeSinceRevision": str(last)},
            )
        if watch.error is not None:  # the watcher could not read the heads: end like a read
            raise copy.copy(watch.error) from watch.error
        fresh = watch.after(last)
        if fresh is None:  # behind what the watch keeps: read those from the database
            async with aclosing(history(artifact_id, last + 1, watch.head)) as behind:
                async for item in behind:
                    yield item
                    last = item.ref.revision
            idle_since = time.monotonic()
            continue
        for item in fresh:
            yield item
            last = item.ref.revision
        if fresh:
            idle_since = time.monotonic()
            continue
        wait = progress_interval - (time.monotonic() - idle_since)
        if wait <= 0:
            yield Progress(ArtifactRef(artifact_id, last))
            idle_since = time.monotonic()
            continue
        await watch.changed(wait)
