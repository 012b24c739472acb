"""What a channel answers: one candidate, best first in its list."""

from __future__ import annotations

from typing import NamedTuple

from ..domain.fusion import HitKey


class Ranked(NamedTuple):  # a tuple: a search builds dozens of these
    key: HitKey
    entry_content_hash: str  # as the projection row has it
    score: float = 0.0  # the channel's own score (BM25 for the inverted lists), when it has one
