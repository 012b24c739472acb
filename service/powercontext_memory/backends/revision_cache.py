"""Parsed, verified revisions kept in memory, and the read of a revision stored as pieces.

Revisions share their manifest pieces (domain/manifest_pieces.py), so the cache weighs each
distinct leaf once: a memory's consecutive revisions cost about one manifest plus what changed.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict

from ..domain.manifest_pieces import Leaf
from ..domain.models import Revision
from . import codec
from .port import ReadTransaction, RevisionRow


class RevisionCache:
    """Revisions are immutable, so entries never go stale.

    Bounded by manifest rows of distinct leaves, not by revisions: one revision of a
    100,000-entry memory weighs as much as thousands of small ones, but its successor adds only
    the leaves it changed. The newest revision is always kept (writes build on it).
    """

    # A 100,000-entry head and what its next commits change: rows beyond the head are old
    # leaves that only reads of older revisions use, so a larger bound buys RSS for nothing
    # (measured by `make bench BENCH_ARGS=--large`, bench/hybrid.py; see
    # docs/design/performance-history.md).
    def __init__(self, max_rows: int = 110_000) -> None:
        self._items: OrderedDict[tuple[str, int], Revision] = OrderedDict()
        self._max_rows = max_rows
        self._rows = 0
        self._held: dict[str, int] = {}  # leaf key -> revisions in the cache holding it
        # Every leaf alive in this process that came from (or went to) this database: a read
        # re-uses them instead of fetching and parsing their rows again.
        self.leaves: weakref.WeakValueDictionary[str, Leaf] = weakref.WeakValueDictionary()
        # Revisions whose pieces are stored (a commit on them writes only its own pieces).
        self._pieced: set[tuple[str, int]] = set()

    def get(self, key: tuple[str, int]) -> Revision | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def is_pieced(self, key: tuple[str, int]) -> bool:
        return key in self._pieced

    def put(self, revision: Revision, pieced: bool = False) -> None:
        key = (revision.ref.artifact_id, revision.ref.revision)
        old = self._items.pop(key, None)
        if old is not None:
            self._release(key, old)
        content = revision.content
        # The canonical bytes were needed to verify or write the revision, not to keep.
        _ = content.content_hash  # computed (and cached) while they are still here
        content.__dict__.pop("canonical_bytes", None)
        content._canonical = None
        self._items[key] = revision
        if pieced:
            self._pieced.add(key)
        self._rows += 1
        for leaf in content.manifest.leaves:
            self.leaves.setdefault(leaf.key, leaf)
            held = self._held.get(leaf.key, 0)
            if not held:
                self._rows += len(leaf.entries)
            self._held[leaf.key] = held + 1
        while self._rows > self._max_rows and len(self._items) > 1:
            evicted_key, evicted = self._items.popitem(last=False)
            self._release(evicted_key, evicted)

    def _release(self, key: tuple[str, int], revision: Revision) -> None:
        self._pieced.discard(key)
        self._rows -= 1
        for leaf in revision.content.manifest.leaves:
            held = self._held[leaf.key] - 1
            if held:
                self._held[leaf.key] = held
            else:
                del self._held[leaf.key]
                self._rows -= len(leaf.entries)


async def read_revision(tx: ReadTransaction, row: RevisionRow, cache: RevisionCache) -> Revision:
    """A stored revision, verified: whole content (rows written before pieces, until
    `migrate-manifests`) or re-assembled from pieces."""
    if row.manifest_root is None:
        return codec.revision_from_row(row)
    return await read_pieced_revision(tx, row, cache)


async def read_pieced_revision(
    tx: ReadTransaction, row: RevisionRow, cache: RevisionCache
) -> Revision:
    """A revision stored as pieces: index pieces, then only the leaves this process does not
    hold already, each verified against its key; the whole against content_hash."""
    index_keys = codec.root_index_keys(row)
    index = {p.piece_key: p for p in await tx.manifest_piece_rows(index_keys)}
    keys = codec.leaf_keys(row, index_keys, index)
    found: dict[str, Leaf] = {}
    for key in keys:
        leaf = cache.leaves.get(key)
        if leaf is not None:
            found[key] = leaf
    missing = [k for k in dict.fromkeys(keys) if k not in found]
    if missing:
        stored = {p.piece_key: p for p in await tx.manifest_piece_rows(missing)}
        for key in missing:
            piece = stored.get(key)
            if piece is None:
                codec.leaf_keys(row, [key], stored)  # raises DATA_LOSS naming the piece
            else:
                found[key] = codec.leaf_from_row(row, piece)
    return codec.revision_from_pieces(row, [found[k] for k in keys])
