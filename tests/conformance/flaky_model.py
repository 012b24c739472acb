"""`FlakyModel`: a test double WRAPPING the real embedding model.

It only injects what a real model cannot be made to do on demand (an outage, a NaN or
wrong-length vector, a different profile, a model that answers only when the test says so);
every vector it returns otherwise is the real one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from powercontext_memory.domain.models import EmbeddingProfile
from powercontext_memory.embedding.minilm import MiniLMEmbedder
from powercontext_memory.embedding.port import EmbeddingResult, EmbeddingUnavailableError


class FlakyModel:
    """Test double around the real model: can fail, corrupt vectors, or claim another profile."""

    def __init__(self, real: MiniLMEmbedder, profile: EmbeddingProfile | None = None) -> None:
        self.real = real
        self._profile = profile or real.profile
        self.down = False
        self.corrupt: str | None = None  # "nan" | "dimension" | "zero"
        self.calls = 0
        self.gate: asyncio.Event | None = None  # set: embed answers only once it is set
        self.waiting = 0  # calls waiting at the gate now
        self.cancelled = 0  # calls cancelled while waiting at the gate

    @property
    def profile(self) -> EmbeddingProfile:
        return self._profile

    async def embed(self, texts: Sequence[str]) -> EmbeddingResult:
        self.calls += 1
        if self.gate is not None:
            self.waiting += 1
            try:
                await self.gate.wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            finally:
                self.waiting -= 1
        if self.down:
            raise EmbeddingUnavailableError("test double: model is down")
        result = await self.real.embed(texts)
        vectors = result.vectors.copy()
        if self.corrupt == "nan":
            vectors[:, 0] = np.nan
        elif self.corrupt == "dimension":
            vectors = vectors[:, :-1]
        elif self.corrupt == "zero":
            vectors[:] = 0
        return EmbeddingResult(vectors, result.usage_tokens)

    async def close(self) -> None:  # the shared real model outlives each service
        pass
