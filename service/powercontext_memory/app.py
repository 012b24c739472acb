"""Wiring: build a MemoryService over a concrete backend."""

from __future__ import annotations

import logging
import os

from .backends.database import CommitHook, DatabaseMemoryBackend
from .backends.sqlite import SQLiteStorage
from .embedding.base import EmbeddingModel
from .memory import DEFAULT_PROGRESS_INTERVAL, MemoryService

logger = logging.getLogger(__name__)

DEFAULT_DATABASE = "data/memory.sqlite3"


async def open_sqlite_service(
    path: str | os.PathLike[str] = DEFAULT_DATABASE,
    *,
    embedding: EmbeddingModel | None = None,
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
    commit_hook: CommitHook | None = None,
) -> MemoryService:
    """Open (creating if needed) the SQLite database at `path` and serve it.

    The first model a database is opened with fixes its embedding profile. A model with
    another profile later does not touch stored vectors: vector search is then unavailable
    (GetCapabilities says why) until the offline migrate-embedding command is run.
    """
    storage = await SQLiteStorage.open(path)
    backend = DatabaseMemoryBackend(storage, commit_hook=commit_hook)
    stored = await backend.load_profile()
    if embedding is not None and stored is None:
        await backend.set_profile(embedding.profile)
    service = MemoryService(backend, embedding=embedding, progress_interval=progress_interval)
    problem = service.capabilities().vector_unavailable_reason
    if embedding is not None and problem:
        logger.warning("vector search disabled: %s", problem)
    return service
