"""Calls to the embedding model on behalf of the service: checked vectors or none.

Commits, queries and the offline rebuild all embed through one object, so whether vectors
can be used at all, and how a failed or malformed vector is treated, is decided in one
place: a model that is down, or a vector that fails the checks, yields no vector (never a
stale or placeholder one).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from .backends.database import DatabaseMemoryBackend
from .domain import fusion, lifecycle
from .embedding.port import EmbeddingModel, EmbeddingUnavailableError

logger = logging.getLogger(__name__)

Vector = npt.NDArray[np.float32]


class Embedder:
    """The configured model (if any) checked against the database's embedding profile."""

    def __init__(self, backend: DatabaseMemoryBackend, model: EmbeddingModel | None) -> None:
        self.backend = backend
        self.model = model

    def problem(self) -> str:
        """Why vectors cannot be written or searched here ("" when they can)."""
        if self.model is None:
            return "no embedding model is configured"
        if self.backend.profile is None:
            return "the database has no embedding profile"
        if self.model.profile != self.backend.profile:
            return (
                f"the model's embedding profile {self.model.profile.profile_id!r} differs "
                f"from the database's {self.backend.profile.profile_id!r}: run the offline "
                "migrate-embedding command"
            )
        return self.backend.capabilities().vector_problem

    async def embed(self, texts: Sequence[str], *, purpose: str) -> list[Vector | None]:
        """Vectors for `texts`, None where the model failed or a vector fails the checks.

        `purpose` (commit, query, rebuild) labels the call's latency for the observer, which
        travels with the backend.
        """
        assert self.model is not None and self.backend.profile is not None
        started = time.perf_counter()
        outcome = "error"
        try:
            result = await self.model.embed(list(texts))
            outcome = "ok"
        except EmbeddingUnavailableError as error:
            logger.warning("embedding model unavailable, continuing without vectors: %s", error)
            return [None] * len(texts)
        finally:
            self.backend.observer.embedded(purpose, outcome, time.perf_counter() - started)
        if len(result.vectors) != len(texts):
            logger.warning(
                "embedding model returned %d vectors for %d texts", len(result.vectors), len(texts)
            )
            return [None] * len(texts)
        out: list[Vector | None] = []
        for vector in result.vectors:
            try:
                out.append(fusion.check_embedding(vector, self.backend.profile.dimension))
            except ValueError as error:
                logger.warning("refusing a vector from the embedding model: %s", error)
                out.append(None)
        return out

    async def with_vectors(self, plan: lifecycle.CommitPlan) -> lifecycle.CommitPlan:
        """Attach vectors to the rows this commit projects, computed outside the transaction.

        Rows left without a vector make the memory incomplete for vector search until an
        offline rebuild.
        """
        if not plan.projection_upserts or self.problem():
            return plan
        vectors = await self.embed([r.text for r in plan.projection_upserts], purpose="commit")
        assert self.backend.profile is not None
        profile = self.backend.profile
        rows = tuple(
            dataclasses.replace(
                row,
                embedding=vector.astype("<f4").tobytes(),
                embedding_content_hash=profile.embedding_content_hash(row.entry_content_hash),
            )
            if vector is not None
            else row
            for row, vector in zip(plan.projection_upserts, vectors, strict=True)
        )
        return dataclasses.replace(plan, projection_upserts=rows)

    async def close(self) -> None:
        if self.model is not None:
            await self.model.close()
