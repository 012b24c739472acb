"""Wiring: build a MemoryService over a concrete backend."""

from __future__ import annotations

import os

from .backends.database import CommitHook, DatabaseMemoryBackend
from .backends.sqlite import SQLiteStorage
from .memory import DEFAULT_PROGRESS_INTERVAL, MemoryService

DEFAULT_DATABASE = "data/memory.sqlite3"


async def open_sqlite_service(
    path: str | os.PathLike[str] = DEFAULT_DATABASE,
    *,
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
    commit_hook: CommitHook | None = None,
) -> MemoryService:
    """Open (creating if needed) the SQLite database at `path` and serve it."""
    storage = await SQLiteStorage.open(path)
    backend = DatabaseMemoryBackend(storage, commit_hook=commit_hook)
    return MemoryService(backend, progress_interval=progress_interval)
