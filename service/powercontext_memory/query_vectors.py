"""The vector of a search or context query, or the reason there is none.

Search and PrepareContext embed their query the same way, before any read, so a query that
cannot use vectors falls back to full text with the same reason in both.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from .api import SearchMode
from .embedder import Embedder, Vector

VectorAnswer = tuple[Vector | None, str]


class QueryVectors:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def without_vector(self, mode: SearchMode) -> str | None:
        """Why a query in `mode` gets no vector, known before embedding ("" for FTS); None
        when the model is to be asked."""
        if mode is SearchMode.FTS:
            return ""
        return self.embedder.problem() or None

    async def for_query(self, query: str, mode: SearchMode) -> tuple[Vector | None, str]:
        """The query's vector when the mode may use one, else why not ("" for FTS)."""
        problem = self.without_vector(mode)
        if problem is not None:
            return None, problem
        [vector] = await self.embedder.embed([query], purpose="query")
        if vector is None:
            return None, "the embedding model is unavailable"
        return vector, ""


class TimedVector:
    """A query's vector being computed from now on, and how long it took (`ms`): awaited where
    the search needs it, so the search's other work runs meanwhile."""

    def __init__(self, answer: Callable[[], Awaitable[VectorAnswer]]) -> None:
        self.ms = 0.0
        self._task = asyncio.ensure_future(self._timed(answer))

    async def _timed(self, answer: Callable[[], Awaitable[VectorAnswer]]) -> VectorAnswer:
        # The model is called here, in the task: one cancelled before its first step leaves
        # no coroutine behind that was never awaited.
        started = time.perf_counter()
        try:
            return await answer()
        finally:
            self.ms = (time.perf_counter() - started) * 1000

    async def answer(self) -> VectorAnswer:
        """The vector and why there is none (as QueryVectors.for_query); every call the same."""
        return await asyncio.shield(self._task)

    def abandon(self) -> None:
        """The request is over: stop waiting for a vector nobody will use."""
        if not self._task.done():
            self._task.cancel()
        elif not self._task.cancelled():
            self._task.exception()  # retrieved: a failure here was the request's own already
