"""Which search mode runs, decided once per request from what is available."""

from __future__ import annotations

from dataclasses import dataclass

from ..api import SearchMode
from ..domain.errors import CapabilityNotSupportedError


@dataclass(frozen=True, slots=True)
class Plan:
    mode: SearchMode  # FTS, VECTOR or HYBRID: what runs
    fallback_reason: str  # why vectors (or full text) were left out, "" when nothing was

    @property
    def fts(self) -> bool:
        return self.mode is not SearchMode.VECTOR

    @property
    def vector(self) -> bool:
        return self.mode is not SearchMode.FTS


def resolve(
    requested: SearchMode, *, has_vector: bool, vector_problem: str, fts_problem: str
) -> Plan:
    """The plan for `requested`, given whether the query has a vector that may be used (and
    if not, why not) and why full text is unavailable ("" when it is available).

    VECTOR and HYBRID are refused without vectors, FTS without full text; AUTO falls back to
    what works and says why.
    """
    if vector_problem:
        if requested in (SearchMode.VECTOR, SearchMode.HYBRID):
            raise CapabilityNotSupportedError(
                requested.value,
                f"{requested.value} search is not available: {vector_problem} "
                "(mode FTS or AUTO still work)",
            )
        has_vector = False
    if not has_vector:
        mode = SearchMode.FTS
    elif requested is SearchMode.VECTOR:
        mode = SearchMode.VECTOR
    else:
        mode = SearchMode.HYBRID
    if fts_problem and mode is not SearchMode.VECTOR:
        if requested is not SearchMode.AUTO or not has_vector:
            raise CapabilityNotSupportedError(
                "fts", f"full-text search is not available: {fts_problem}"
            )
        return Plan(SearchMode.VECTOR, fts_problem)
    return Plan(mode, vector_problem)
