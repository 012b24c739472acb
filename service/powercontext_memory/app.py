"""Wiring: build a MemoryService over a concrete backend."""

from __future__ import annotations

import logging
import os

from .backends.database import CommitHook, DatabaseMemoryBackend
from .backends.oceanbase.wire import OceanBaseDsn, is_oceanbase_dsn
from .backends.port import StorageAdapter
from .backends.sqlite import SQLiteStorage
from .candidates import CandidatePipeline
from .candidates.port import Extractor
from .domain.lifecycle import IdFactory, random_id
from .embedding.port import EmbeddingModel
from .memory import DEFAULT_PROGRESS_INTERVAL, MemoryService
from .security.signing import TokenSigner
from .streams import StreamLimits

logger = logging.getLogger(__name__)

DEFAULT_DATABASE = "data/memory.sqlite3"


async def open_storage(
    location: str | os.PathLike[str], *, timeout: float | None = None
) -> StorageAdapter:
    """An OceanBase DSN (oceanbase://user@host:port/db) or a SQLite file path; `timeout`
    bounds each database call in seconds (None: unbounded)."""
    if is_oceanbase_dsn(str(location)):
        try:
            from .backends.oceanbase.storage import OceanBaseStorage
        except ImportError as error:
            raise RuntimeError(
                f"an OceanBase database needs the oceanbase extra ({error}): "
                "pip install 'powercontext-memory[oceanbase]'"
            ) from error
        password = os.environ.get("POWERCONTEXT_OCEANBASE_PASSWORD")
        return await OceanBaseStorage.open(
            OceanBaseDsn.parse(str(location), password), timeout=timeout
        )
    return await SQLiteStorage.open(location, timeout=timeout)


async def open_service(
    location: str | os.PathLike[str] = DEFAULT_DATABASE,
    *,
    embedding: EmbeddingModel | None = None,
    progress_interval: float = DEFAULT_PROGRESS_INTERVAL,
    commit_hook: CommitHook | None = None,
    id_factory: IdFactory = random_id,
    database_timeout: float | None = None,
    stream_limits: StreamLimits | None = None,
    extractor: Extractor | None = None,
) -> MemoryService:
    """Open (creating the schema if needed) the database at `location` and serve it.

    `database_timeout` bounds each database call in seconds (the server's --database-timeout;
    None, for offline commands: unbounded); `stream_limits` caps open Changes streams;
    `extractor` is an optional model-assisted candidate extractor (serve --extractor-url).
    Revisions stored before the compact changes columns existed get them here (backfill), and
    the sources that revisions written before memory_sources cite are linked to their memories.

    The first model a database is opened with fixes its embedding profile. A model with
    another profile later does not touch stored vectors: vector search is then unavailable
    (GetCapabilities says why) until the offline migrate-embedding command is run.
    """
    storage = await open_storage(location, timeout=database_timeout)
    backend = DatabaseMemoryBackend(storage, commit_hook=commit_hook)
    filled = await backend.backfill_changes()
    if filled:
        logger.info("stored the compact changes of %d revisions written before", filled)
    linked = await backend.backfill_source_links()
    if linked:
        logger.info("linked %d cited sources to their memories (token memory lists)", linked)
    stored = await backend.load_profile()
    if embedding is not None and stored is None:
        await backend.set_profile(embedding.profile)
    service = MemoryService(
        backend,
        embedding=embedding,
        progress_interval=progress_interval,
        id_factory=id_factory,
        pipeline=CandidatePipeline([extractor] if extractor is not None else []),
        signer=await TokenSigner.load(backend),
    )
    if stream_limits is not None:
        service.streams = stream_limits
    capabilities = service.capabilities()
    if embedding is not None and capabilities.vector_unavailable_reason:
        logger.warning("vector search disabled: %s", capabilities.vector_unavailable_reason)
    if not capabilities.fts:
        logger.warning("full-text search disabled: %s", capabilities.fts_unavailable_reason)
    return service
