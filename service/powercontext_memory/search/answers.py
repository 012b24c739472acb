"""A bounded cache of full-text answers, keyed by the head revisions they were computed at.

A revision is immutable and the projection a full-text search reads is derived from the head
revision alone (it is written in the head's own commit transaction), so the same query, limit
and heads always verify to the same hits: a cached answer is exactly what a fresh search
would answer. A new commit moves the head, so its key is never asked for again (the LRU
drops it). Vector and hybrid answers are not cached: an offline rebuild may change a head's
vectors without moving the head.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence

from ..api import Hit
from ..domain.models import ArtifactRef

DEFAULT_ANSWERS = 4096
# Answers hold entry texts: the cache is bounded by their size too (an entry may be large).
DEFAULT_TEXT_BYTES = 16 * 1024 * 1024
_HIT_OVERHEAD = 256  # ids, hashes and the Hit itself, roughly

# heads, query, limit, and the search's conditions (filters and min_score): hashable values
AnswerKey = tuple[tuple[ArtifactRef, ...], str, int, Hashable]


class AnswerCache:
    def __init__(
        self, max_answers: int = DEFAULT_ANSWERS, max_bytes: int = DEFAULT_TEXT_BYTES
    ) -> None:
        self._items: OrderedDict[AnswerKey, tuple[tuple[Hit, ...], int]] = OrderedDict()
        self.max_answers = max_answers  # 0 turns the cache off
        self.max_bytes = max_bytes
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(
        heads: Sequence[ArtifactRef], query: str, limit: int, conditions: Hashable = None
    ) -> AnswerKey:
        return tuple(heads), query, limit, conditions

    def get(self, key: AnswerKey) -> list[Hit] | None:
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self._items.move_to_end(key)
        self.hits += 1
        return list(found[0])

    def put(self, key: AnswerKey, hits: Sequence[Hit]) -> None:
        size = sum(len(h.text) + _HIT_OVERHEAD for h in hits) + _HIT_OVERHEAD
        if self.max_answers <= 0 or size > self.max_bytes:
            return
        old = self._items.pop(key, None)
        if old is not None:
            self._bytes -= old[1]
        self._items[key] = (tuple(hits), size)
        self._bytes += size
        while len(self._items) > self.max_answers or self._bytes > self.max_bytes:
            _, (_, evicted) = self._items.popitem(last=False)
            self._bytes -= evicted

    def clear(self) -> None:
        self._items.clear()
        self._bytes = 0
