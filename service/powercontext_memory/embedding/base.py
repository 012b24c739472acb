"""The EmbeddingModel port: turns texts into vectors of one fixed profile.

Implementations run outside any database transaction. Their output is untrusted: the write
path re-checks every vector (dimension, finite, non-zero, unit norm) before it is stored, and
a model that is down only means entries are committed without vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..domain.models import EmbeddingProfile


class EmbeddingUnavailableError(Exception):
    """The model could not produce vectors right now (down, timed out, bad response)."""


class ModelIntegrityError(RuntimeError):
    """A local model file is missing, unreadable or not the pinned file (sha256 mismatch)."""


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
