"""The EmbeddingModel port: turns texts into vectors of one fixed profile.

Implementations run outside any database transaction. Their output is untrusted: the write
path re-checks every vector (dimension, finite, non-zero, unit norm) before it is stored, and
a model that is down only means entries are committed without vectors.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from ..domain.models import EmbeddingProfile

T = TypeVar("T")


class InferenceThread:
    """The one thread a local model loads and runs on.

    Its inference runs one batch at a time anyway. On one thread, the batches' scratch memory
    stays in one malloc arena: glibc gives threads arenas of their own and keeps what a thread
    freed in its arena, so batches spread over the default pool's threads left more of the
    heap behind them (see the README's memory figures)."""

    def __init__(self, name: str) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)

    def close(self) -> None:
        self._executor.shutdown(wait=False)  # a batch still running finishes on its own


class EmbeddingUnavailableError(Exception):
    """The model could not produce vectors right now (down, timed out, bad response)."""


class ModelIntegrityError(RuntimeError):
    """A local model file is missing, unreadable or not the pinned file (sha256 mismatch)."""


def read_verified(path: Path, expected_sha256: str) -> bytes:
    """The bytes of a local model file, if their sha256 is the pinned one (ModelIntegrityError
    otherwise): what runs is what was checked."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelIntegrityError(f"cannot read embedding model file {path}: {exc}") from exc
    actual = hashlib.sha256(data).hexdigest()
    if actual != expected_sha256.lower():
        raise ModelIntegrityError(
            f"embedding model file {path} is corrupted or not the expected model: "
            f"sha256 {actual}, expected {expected_sha256}"
        )
    return data


@dataclass(frozen=True, slots=True)
class EmbeddingResult:
    # One float32 row per input text, in input order.
    vectors: npt.NDArray[np.float32]
    # Tokens (or the provider's usage unit) consumed, when known.
    usage_tokens: int = 0


class EmbeddingModel(Protocol):
    @property
    def profile(self) -> EmbeddingProfile: ...

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        """Vectors for `texts`; raises EmbeddingUnavailableError when it cannot."""
        ...

    async def close(self) -> None: ...
