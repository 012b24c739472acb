"""PrepareContext's rule and note rows of a memory at one revision, kept per process.

Which active entries of a memory are constraints, preferences or working notes (and from
which revision each version dates) is fixed once the revision is: the revision is immutable,
and its head projection is written in the commit that makes it the head. So the rows read and
confirmed against the head manifest at revision R serve every later PrepareContext at R, and
a call at an unchanged head reads nothing but the heads. A new head is a new key, filled from
the newest cached revision of the memory plus the rows of the entries changed since
(context.py), and rows of an old revision simply age out.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from .port import HeadKindRow

# Bounded in rows so the cache stays a small share of the server's RSS (measured by
# `make bench BENCH_ARGS=--large`, bench/hybrid.py).
DEFAULT_MAX_ROWS = 50_000

Key = tuple[str, int, tuple[str, ...]]  # memory, revision, kinds asked for


class KindRowsCache:
    """Least recently used memory first out, past `max_rows` rows in all."""

    def __init__(self, max_rows: int = DEFAULT_MAX_ROWS) -> None:
        self.max_rows = max_rows
        self._items: OrderedDict[Key, tuple[HeadKindRow, ...]] = OrderedDict()
        self._rows = 0
        self._newest: dict[tuple[str, tuple[str, ...]], int] = {}  # (memory, kinds) -> revision

    def get(self, key: Key) -> tuple[HeadKindRow, ...] | None:
        found = self._items.get(key)
        if found is not None:
            self._items.move_to_end(key)
        return found

    def newest(
        self, artifact_id: str, kinds: tuple[str, ...]
    ) -> tuple[int, tuple[HeadKindRow, ...]] | None:
        """The newest revision of this memory cached for `kinds`, and its rows."""
        revision = self._newest.get((artifact_id, kinds))
        if revision is None:
            return None
        rows = self.get((artifact_id, revision, kinds))
        return None if rows is None else (revision, rows)

    def put(self, key: Key, rows: Sequence[HeadKindRow]) -> None:
        if key in self._items or len(rows) > self.max_rows:
            return
        self._items[key] = tuple(rows)
        self._rows += len(rows)
        artifact_id, revision, kinds = key
        if revision > self._newest.get((artifact_id, kinds), 0):
            self._newest[(artifact_id, kinds)] = revision
        while self._rows > self.max_rows:
            (artifact_id, revision, kinds), evicted = self._items.popitem(last=False)
            self._rows -= len(evicted)
            if self._newest.get((artifact_id, kinds)) == revision:
                del self._newest[(artifact_id, kinds)]
