"""The service a configuration opens, with its embedding model (auto resolved first)."""

from __future__ import annotations

from typing import Any, cast

from ..app import open_service
from ..embedding.factory import AUTO, EmbeddingConfig, EmbeddingKind, open_embedding_model
from ..memory import MemoryService
from .config import ServeConfig


async def embedding_config(
    config: ServeConfig, database_timeout: float | None = None
) -> EmbeddingConfig:
    dimension = config.embedding_dimension
    kind = config.embedding
    if kind == AUTO:
        from ..embedding_choice import choose_for

        choice = await choose_for(
            config.database,
            http_configured=bool(config.embedding_url and config.embedding_model and dimension),
            timeout=database_timeout,
        )
        kind = choice.kind
    return EmbeddingConfig(
        kind=cast(EmbeddingKind, kind),
        url=config.embedding_url,
        model=config.embedding_model,
        dimension=int(dimension) if dimension is not None else None,
        model_cache=config.model_cache,
    )


async def open_configured(config: ServeConfig, **options: Any) -> MemoryService:
    """The service over `config.database` with its embedding model (if any)."""
    model_config = await embedding_config(config, options.get("database_timeout"))
    model = await open_embedding_model(model_config)
    try:
        return await open_service(config.database, embedding=model, **options)
    except BaseException:
        if model is not None:
            await model.close()
        raise
