"""The embedding model options of serve and the admin commands, and opening a service with them."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ..embedding.factory import (
    AUTO,
    DEFAULT_API_KEY_ENV,
    EMBEDDING_KINDS,
    MODEL_CACHE_OFF,
    default_model_cache,
    model_cache_directory,
)
from ..memory import MemoryService
from ..serving.config import ServeConfig
from ..serving.model import open_configured

ENV_EMBEDDING = "POWERCONTEXT_EMBEDDING"
ENV_EMBEDDING_URL = "POWERCONTEXT_EMBEDDING_URL"
ENV_EMBEDDING_MODEL = "POWERCONTEXT_EMBEDDING_MODEL"
ENV_EMBEDDING_DIMENSION = "POWERCONTEXT_EMBEDDING_DIMENSION"
ENV_MODEL_CACHE = "POWERCONTEXT_MODEL_CACHE"


def embedding_arguments(parser: argparse.ArgumentParser, default: str = "none") -> None:
    parser.add_argument(
        "--embedding",
        choices=(AUTO, *EMBEDDING_KINDS),
        default=os.environ.get(ENV_EMBEDDING, default),
        help="embedding model: none (full text only), minilm (offline all-MiniLM-L6-v2, "
        "English), multilingual (offline USE-multilingual v3, English, Chinese and 14 more), "
        "http (OpenAI-compatible endpoint; key from env "
        f"{DEFAULT_API_KEY_ENV}) or auto (a database's stored profile; multilingual for a new "
        f"database) (env {ENV_EMBEDDING}, default {default})",
    )
    parser.add_argument(
        "--embedding-url",
        default=os.environ.get(ENV_EMBEDDING_URL),
        help=f"http: base URL, e.g. http://127.0.0.1:8080/v1 (env {ENV_EMBEDDING_URL})",
    )
    parser.add_argument(
        "--embedding-model",
        default=os.environ.get(ENV_EMBEDDING_MODEL),
        help=f"http: model name (env {ENV_EMBEDDING_MODEL})",
    )
    parser.add_argument(
        "--embedding-dimension",
        type=int,
        default=os.environ.get(ENV_EMBEDDING_DIMENSION),
        help=f"http: vector dimension (env {ENV_EMBEDDING_DIMENSION})",
    )
    parser.add_argument(
        "--model-cache",
        type=model_cache_argument,
        default=os.environ.get(ENV_MODEL_CACHE, default_model_cache()),
        metavar="DIR",
        help="multilingual: directory its 65 MB token table is mapped from (written there from "
        "the verified weights; only the rows in use stay in memory), or "
        f"{MODEL_CACHE_OFF} to hold it in the heap (env {ENV_MODEL_CACHE}, default "
        "$XDG_CACHE_HOME/powercontext-memory or ~/.cache/powercontext-memory)",
    )


def model_cache_argument(text: str) -> Path | None:
    try:
        return model_cache_directory(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


async def open_from_args(args: argparse.Namespace, **options: Any) -> MemoryService:
    """The service over --database with the --embedding model (if any)."""
    return await open_configured(ServeConfig.from_args(args), **options)
