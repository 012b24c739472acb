"""The flat-v1 manifest cut into content-addressed pieces, so a commit costs what it changes.

A leaf piece is a run of manifest rows in entry_id order; its bytes are the rows' canonical
JSON joined by commas, exactly as they sit inside the flat-v1 canonical bytes, and its key is
their SHA-256. Boundaries are content-defined: a row closes its leaf when a hash of its
entry_id has LEAF_BITS low zero bits (or the leaf reaches LEAF_CAP rows). A boundary depends
only on entry ids, never on versions or states, so a commit re-cuts only the leaves it touches,
and one manifest always gives the same pieces (live commits and the migration store the same
keys). Index pieces list leaf keys the same way (a leaf closes its index piece by a hash of its
last entry_id), so a revision row holds only the short list of index keys (its root).
"""

from __future__ import annotations

import bisect
import operator
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from functools import cached_property

from .canonical import sha256_hex
from .manifest_entry import EntryState, ManifestEntry

# ~64 rows per leaf on average, so a one-entry commit rewrites one small leaf (bytes per commit:
# `make bench`, bench/storage.py).
LEAF_BITS = 6
LEAF_CAP = 256
INDEX_BITS = 6  # ~64 leaves per index piece
INDEX_CAP = 256
ROOT_FORMAT = "pieces-v1:"  # the root column: this prefix, then index keys joined by commas

_entry_id = operator.attrgetter("entry_id")
_LEAF_MASK = (1 << LEAF_BITS) - 1
_INDEX_MASK = ((1 << INDEX_BITS) - 1) << LEAF_BITS  # other bits than the leaf rule's


def _closes_leaf(entry_id: str) -> bool:
    return zlib.crc32(entry_id.encode()) & _LEAF_MASK == 0


def _closes_index(last_entry_id: str) -> bool:
    return zlib.crc32(last_entry_id.encode()) & _INDEX_MASK == 0


class Leaf:
    """A run of manifest rows with its canonical bytes and key, shared between revisions."""

    __slots__ = (
        "entries",
        "body",
        "key",
        "active",
        "first_id",
        "last_id",
        "closes_index",
        "_active_filter",
        "__weakref__",
    )

    def __init__(self, entries: Sequence[ManifestEntry], body: bytes | None = None) -> None:
        self.entries: tuple[ManifestEntry, ...] = tuple(entries)
        self.body = body if body is not None else ",".join([e.canonical for e in entries]).encode()
        self.key = sha256_hex(self.body)
        self.active = sum(1 for e in self.entries if e.state is EntryState.ACTIVE)
        self.first_id = self.entries[0].entry_id
        self.last_id = self.entries[-1].entry_id
        self.closes_index = _closes_index(self.last_id)
        self._active_filter: int | None = None

    @property
    def active_filter(self) -> int:
        """A Bloom filter of the active rows' content hashes (built on first use): a leaf
        whose filter misses a query's bits holds none of its hashes. 256 bytes a leaf, a fraction
        of what a set of the hashes held (docs/design/performance-history.md)."""
        if self._active_filter is None:
            self._active_filter = hash_filter(
                e.entry_content_hash for e in self.entries if e.state is EntryState.ACTIVE
            )
        return self._active_filter

    def find(self, entry_id: str) -> ManifestEntry | None:
        at = bisect.bisect_left(self.entries, entry_id, key=_entry_id)
        if at < len(self.entries) and self.entries[at].entry_id == entry_id:
            return self.entries[at]
        return None


FILTER_BITS = 2048  # with 2 bits per hash: ~0.4 % of leaves pass for a 1-entry query


def hash_filter(content_hashes: Iterable[str]) -> int:
    """Two bits per content hash (from its CRC-32) in a FILTER_BITS-bit int."""
    bits = 0
    for h in content_hashes:
        crc = zlib.crc32(h.encode())
        bits |= (1 << (crc % FILTER_BITS)) | (1 << ((crc >> 11) % FILTER_BITS))
    return bits


class IndexPiece:
    """A run of leaf keys: what the revision row's root points at."""

    __slots__ = ("leaves", "body", "key")

    def __init__(self, leaves: Sequence[Leaf]) -> None:
        self.leaves = tuple(leaves)
        self.body = ",".join([leaf.key for leaf in leaves]).encode()
        self.key = sha256_hex(self.body)


def cut_leaves(entries: Iterable[ManifestEntry]) -> list[Leaf]:
    """Rows in entry_id order -> leaves, by the content-defined rule."""
    leaves: list[Leaf] = []
    run: list[ManifestEntry] = []
    for entry in entries:
        run.append(entry)
        if len(run) >= LEAF_CAP or _closes_leaf(entry.entry_id):
            leaves.append(Leaf(run))
            run = []
    if run:
        leaves.append(Leaf(run))
    return leaves


def cut_index(leaves: Sequence[Leaf]) -> list[IndexPiece]:
    pieces: list[IndexPiece] = []
    run: list[Leaf] = []
    for leaf in leaves:
        run.append(leaf)
        if len(run) >= INDEX_CAP or leaf.closes_index:
            pieces.append(IndexPiece(run))
            run = []
    if run:
        pieces.append(IndexPiece(run))
    return pieces


def _merge(rows: Sequence[ManifestEntry], updates: Sequence[ManifestEntry]) -> list[ManifestEntry]:
    """Two entry_id-ordered runs into one; an update replaces the row with its entry_id."""
    out: list[ManifestEntry] = []
    i = j = 0
    while i < len(rows) and j < len(updates):
        a, b = rows[i], updates[j]
        if a.entry_id < b.entry_id:
            out.append(a)
            i += 1
        else:
            out.append(b)
            j += 1
            if a.entry_id == b.entry_id:
                i += 1
    out.extend(rows[i:])
    out.extend(updates[j:])
    return out


def apply_updates(
    leaves: Sequence[Leaf], updates: Mapping[str, ManifestEntry], firsts: Sequence[str] = ()
) -> list[Leaf]:
    """The leaves of the manifest with `updates` put in (new rows or replaced ones).

    Only the leaves that receive an update are re-cut; re-cutting starts at a leaf start (a
    boundary of the rule) and stops once it closes a leaf where an old leaf ended, after which
    the old leaves are what the rule gives anyway. Unchanged leaves are the same objects.
    """
    if not updates:
        return list(leaves)
    ordered = [updates[k] for k in sorted(updates)]
    if not leaves:
        return cut_leaves(ordered)
    firsts = firsts or [leaf.first_id for leaf in leaves]
    groups: dict[int, list[ManifestEntry]] = {}
    for row in ordered:
        groups.setdefault(max(0, bisect.bisect_right(firsts, row.entry_id) - 1), []).append(row)
    out: list[Leaf] = []
    i = 0
    while i < len(leaves):
        if i not in groups:
            out.append(leaves[i])
            i += 1
            continue
        run: list[ManifestEntry] = []
        while True:
            for row in _merge(leaves[i].entries, groups.get(i, ())):
                run.append(row)
                if len(run) >= LEAF_CAP or _closes_leaf(row.entry_id):
                    out.append(Leaf(run))
                    run = []
            i += 1
            if i >= len(leaves):
                if run:
                    out.append(Leaf(run))
                break
            if not run and i not in groups:  # back in step with the old cut
                break
    return out


class PieceManifest:
    """A manifest held as leaves: lookups by bisection, counts per leaf, no flat copy."""

    def __init__(self, leaves: Sequence[Leaf]) -> None:
        self.leaves: tuple[Leaf, ...] = tuple(leaves)

    @cached_property
    def _firsts(self) -> list[str]:
        return [leaf.first_id for leaf in self.leaves]

    def entry(self, entry_id: str) -> ManifestEntry | None:
        at = bisect.bisect_right(self._firsts, entry_id) - 1
        return self.leaves[at].find(entry_id) if at >= 0 else None

    def __iter__(self) -> Iterator[ManifestEntry]:
        for leaf in self.leaves:
            yield from leaf.entries

    def rows_after(self, entry_id: str | None) -> Iterator[ManifestEntry]:
        """Rows with an entry id after `entry_id` (all when None), in entry_id order: a
        keyset page starts at the leaf that holds its key, not at the start of the manifest."""
        if entry_id is None:
            yield from self
            return
        at = max(0, bisect.bisect_right(self._firsts, entry_id) - 1)
        for n, leaf in enumerate(self.leaves[at:]):
            if n == 0:
                start = bisect.bisect_right(leaf.entries, entry_id, key=_entry_id)
                yield from leaf.entries[start:]
            else:
                yield from leaf.entries

    def active_with_hashes(self, hashes: set[str]) -> Iterator[ManifestEntry]:
        """Active rows whose content hash is in `hashes`, in entry_id order; only the leaves
        that may hold one (by their filters) are scanned (the add-dedupe of every commit)."""
        probes = [hash_filter((h,)) for h in hashes]
        for leaf in self.leaves:
            held = leaf.active_filter
            if any(held & p == p for p in probes):
                for e in leaf.entries:
                    if e.entry_content_hash in hashes and e.state is EntryState.ACTIVE:
                        yield e

    @cached_property
    def count(self) -> int:
        return sum(len(leaf.entries) for leaf in self.leaves)

    @cached_property
    def active_count(self) -> int:
        return sum(leaf.active for leaf in self.leaves)

    @cached_property
    def index(self) -> list[IndexPiece]:
        return cut_index(self.leaves)

    @property
    def root(self) -> str:
        return ROOT_FORMAT + ",".join(piece.key for piece in self.index)

    def updated(self, updates: Mapping[str, ManifestEntry]) -> PieceManifest:
        return PieceManifest(apply_updates(self.leaves, updates, self._firsts))


def root_keys(root: str) -> list[str]:
    """The index keys a root names; ValueError when it is not a root."""
    if not root.startswith(ROOT_FORMAT):
        raise ValueError("not a pieces-v1 root")
    body = root[len(ROOT_FORMAT) :]
    return body.split(",") if body else []
