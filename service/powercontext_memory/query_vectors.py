"""The vector of a search or context query, or the reason there is none.

Search and PrepareContext embed their query the same way, before any read, so a query that
cannot use vectors falls back to full text with the same reason in both.
"""

from __future__ import annotations

from .api import SearchMode
from .embedder import Embedder, Vector


class QueryVectors:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    async def for_query(self, query: str, mode: SearchMode) -> tuple[Vector | None, str]:
        """The query's vector when the mode may use one, else why not ("" for FTS)."""
        if mode is SearchMode.FTS:
            return None, ""
        problem = self.embedder.problem()
        if problem:
            return None, problem
        [vector] = await self.embedder.embed([query], purpose="query")
        if vector is None:
            return None, "the embedding model is unavailable"
        return vector, ""
