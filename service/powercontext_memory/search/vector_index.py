"""The vector channel: per-memory NumPy matrices over the stored vector projection.

A memory's vectors are loaded once, checked row by row (metadata names the head row's exact
version and content hash, the embedding hash binds the vector to this profile and content, the
vector is finite, of the profile's dimension and unit length), and then kept current by reading
only the entries that later revisions changed. A memory is *complete* when every head row has a
valid vector; only complete memories may be searched by vector (docs/vectors.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..backends.port import HeadProjectionRow, HotReads, VectorRow
from ..domain import fusion
from ..domain.interning import shared_ids
from ..domain.models import ArtifactRef, EmbeddingProfile
from ..embedding.calibration import min_cosine
from .release import release_free_memory

_INITIAL_CAPACITY = 64
LOAD_PAGE_ROWS = 4096  # rows per read when a memory's vectors are first loaded

# (artifact_id, first, last) -> ids of the entries that revisions first..last changed.
ChangedEntries = Callable[[str, int, int], Awaitable[set[str]]]


@dataclass(frozen=True, slots=True)
class VectorHit:
    key: fusion.HitKey
    entry_content_hash: str
    distance: float


@dataclass
class MemoryVectors:
    """One memory's valid vectors at one head revision; slots are reused after removals."""

    artifact_id: str
    revision: int
    dimension: int
    store_vectors: bool = True
    # The profile's admission floor (embedding/calibration.py): cosine scales differ by model.
    min_cosine: float = fusion.VECTOR_MIN_COSINE
    matrix: npt.NDArray[np.float32] = field(init=False)
    valid: npt.NDArray[np.bool_] = field(init=False)
    slots: dict[str, int] = field(default_factory=dict)
    # slot -> (entry id, version id, content hash)
    keys: dict[int, tuple[str, str, str]] = field(default_factory=dict)
    free: list[int] = field(default_factory=list)
    invalid: set[str] = field(default_factory=set)  # head entries without a valid vector

    def __post_init__(self) -> None:
        rows = _INITIAL_CAPACITY if self.store_vectors else 0
        self.matrix = np.zeros((rows, self.dimension), dtype=np.float32)
        self.valid = np.zeros(rows, dtype=bool)

    @property
    def complete(self) -> bool:
        return not self.invalid

    def _slot(self) -> int:
        if self.free:
            return self.free.pop()
        used = len(self.slots) + len(self.free)
        self._reserve(used + 1)
        return used

    def _reserve(self, rows: int) -> None:
        """Room for `rows` slots, growing by an eighth: growing by half left a large memory's
        matrix half empty after its first load (RSS: bench/hybrid.py --large)."""
        capacity = len(self.valid)
        if rows <= capacity:
            return
        while capacity < rows:
            capacity = max(capacity + capacity // 8, _INITIAL_CAPACITY)
        self._resize(capacity)

    def _resize(self, capacity: int) -> None:
        grown = np.zeros((capacity, self.dimension), dtype=np.float32)
        kept = min(capacity, len(self.matrix))
        grown[:kept] = self.matrix[:kept]
        valid = np.zeros(capacity, dtype=bool)
        valid[:kept] = self.valid[:kept]
        self.matrix, self.valid = grown, valid

    def trim(self) -> None:
        """After a first load: keep room for an eighth more rows, no more."""
        used = len(self.slots) + len(self.free)
        room = max(used + used // 8, _INITIAL_CAPACITY)
        if self.store_vectors and room < len(self.valid):
            self._resize(room)

    def remove(self, entry_id: str) -> None:
        self.invalid.discard(entry_id)
        slot = self.slots.pop(entry_id, None)
        if slot is not None:
            self.valid[slot] = False
            self.keys.pop(slot, None)
            self.free.append(slot)

    def put(self, row: VectorRow, profile: EmbeddingProfile) -> None:
        self.remove(row.entry_id)
        if not self.store_vectors:
            # The engine searches its own index: only whether the row is complete matters.
            if not is_bound(row, profile):
                self.invalid.add(row.entry_id)
            return
        vector = valid_vector(row, profile)
        if vector is None:
            self.invalid.add(row.entry_id)
            return
        slot = self._slot()
        self.matrix[slot] = vector
        self.valid[slot] = True
        key = self.keys[slot] = shared_ids(
            row.entry_id, row.entry_version_id, row.entry_content_hash
        )
        self.slots[key[0]] = slot

    def load(self, rows: Sequence[VectorRow], profile: EmbeddingProfile) -> None:
        """Add one page of rows this memory does not hold yet (a first load): the bindings are
        checked row by row, the vectors for the whole page at once (put() does one row)."""
        if not self.store_vectors:
            for row in rows:
                self.put(row, profile)
            return
        width = 4 * self.dimension
        bound: list[VectorRow] = []
        for row in rows:
            if row.embedding is not None and len(row.embedding) == width and is_bound(row, profile):
                bound.append(row)
            else:
                self.invalid.add(row.entry_id)
        if not bound:
            return
        page = np.frombuffer(b"".join(r.embedding or b"" for r in bound), dtype="<f4")
        page = page.reshape(len(bound), self.dimension)
        ok = fusion.valid_embedding_rows(page)
        first = len(self.slots) + len(self.free)
        kept = int(ok.sum())
        self._reserve(first + kept)
        self.matrix[first : first + kept] = page[ok]
        self.valid[first : first + kept] = True
        slot = first
        for row, good in zip(bound, ok.tolist(), strict=True):
            if not good:
                self.invalid.add(row.entry_id)
                continue
            key = self.keys[slot] = shared_ids(
                row.entry_id, row.entry_version_id, row.entry_content_hash
            )
            self.slots[key[0]] = slot
            slot += 1

    def nearest(
        self,
        query: npt.NDArray[np.float32],
        pool: int,
        eligible: Collection[str] | None = None,
    ) -> list[VectorHit]:
        """Up to `pool` admitted rows by ascending L2 distance (unit vectors: d² = 2 − 2·cos);
        with `eligible` (entry ids passing a search's filters), only those rows compete."""
        if not self.slots:
            return []
        used = len(self.slots) + len(self.free)  # rows past this were never written
        similarity = self.matrix[:used] @ query
        similarity[~self.valid[:used]] = -np.inf
        count = min(pool, len(self.slots))
        if eligible is not None:
            mask = np.zeros(used, dtype=bool)
            mask[[self.slots[e] for e in eligible if e in self.slots]] = True
            similarity[~mask] = -np.inf
            count = min(count, int(mask.sum()))
            if count == 0:
                return []
        top = np.argpartition(-similarity, count - 1)[:count]
        hits = []
        for slot in top.tolist():
            if similarity[slot] == -np.inf:
                continue  # no valid vector, or filtered out
            distance = float(np.sqrt(max(0.0, 2.0 - 2.0 * float(similarity[slot]))))
            if not fusion.vector_admits(distance, self.min_cosine):
                continue
            entry_id, version_id, content_hash = self.keys[slot]
            key = fusion.HitKey(self.artifact_id, entry_id, version_id)
            hits.append(VectorHit(key, content_hash, distance))
        return hits


def is_bound(row: VectorRow, profile: EmbeddingProfile) -> bool:
    """A vector is stored for the row, bound to its exact version, content and the profile."""
    return (
        row.has_vector
        and row.meta_entry_version_id == row.entry_version_id
        and row.meta_entry_content_hash == row.entry_content_hash
        and row.embedding_content_hash == profile.embedding_content_hash(row.entry_content_hash)
    )


def valid_vector(row: VectorRow, profile: EmbeddingProfile) -> npt.NDArray[np.float32] | None:
    """The row's vector if every binding holds, else None (the memory is then incomplete)."""
    if row.embedding is None or not is_bound(row, profile):
        return None
    try:
        return fusion.check_embedding(np.frombuffer(row.embedding, dtype="<f4"), profile.dimension)
    except ValueError:
        return None


class VectorIndex:
    """Per-process cache of MemoryVectors, brought to the head revision before each use."""

    def __init__(self, profile: EmbeddingProfile, *, store_vectors: bool = True) -> None:
        self.profile = profile
        self.store_vectors = store_vectors
        self._memories: dict[str, MemoryVectors] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def forget(self) -> None:
        self._memories.clear()

    async def at_head(
        self, tx: HotReads, head: ArtifactRef, changed_since: ChangedEntries
    ) -> MemoryVectors:
        lock = self._locks.setdefault(head.artifact_id, asyncio.Lock())
        async with lock:
            current = self._memories.get(head.artifact_id)
            if current is None or current.revision > head.revision:
                current = await self._load(tx, head)
            elif current.revision < head.revision:
                entries = await changed_since(head.artifact_id, current.revision + 1, head.revision)
                await self._refresh(tx, current, entries)
                current.revision = head.revision
            self._memories[head.artifact_id] = current
            return current

    def apply_commit(
        self,
        artifact_id: str,
        base_revision: int,
        next_revision: int,
        rows: Sequence[HeadProjectionRow],
        removals: Sequence[str],
    ) -> None:
        """Follow a commit made by this process without re-reading anything.

        Only when the cached state is exactly the commit's base; otherwise the next search
        catches up from the stored changes (other processes may write too).
        """
        memory = self._memories.get(artifact_id)
        if memory is None or memory.revision != base_revision:
            return
        for entry_id in removals:
            memory.remove(entry_id)
        for row in rows:
            stored = row.embedding is not None
            memory.put(
                VectorRow(
                    row.entry_id,
                    row.entry_version_id,
                    row.entry_content_hash,
                    row.entry_version_id if stored else None,
                    row.entry_content_hash if stored else None,
                    row.embedding_content_hash,
                    row.embedding,
                    stored,
                ),
                self.profile,
            )
        memory.revision = next_revision

    async def _load(self, tx: HotReads, head: ArtifactRef) -> MemoryVectors:
        memory = MemoryVectors(
            head.artifact_id,
            head.revision,
            self.profile.dimension,
            self.store_vectors,
            min_cosine(self.profile),
        )
        # In pages: one read of a large memory's vectors can outlast the database timeout, and
        # each page is checked without blocking the loop.
        after: str | None = None
        while True:
            page = await tx.vector_rows(
                head.artifact_id,
                None,
                with_vectors=self.store_vectors,
                after=after,
                limit=LOAD_PAGE_ROWS,
            )
            memory.load(page, self.profile)
            if len(page) < LOAD_PAGE_ROWS:
                memory.trim()
                release_free_memory()
                return memory
            after = page[-1].entry_id

    async def _refresh(self, tx: HotReads, memory: MemoryVectors, entries: set[str]) -> None:
        found = await tx.vector_rows(
            memory.artifact_id, sorted(entries), with_vectors=self.store_vectors
        )
        rows = {r.entry_id: r for r in found}
        for entry_id in entries:
            row = rows.get(entry_id)
            if row is None:
                memory.remove(entry_id)  # no longer an active head row
            else:
                memory.put(row, self.profile)


def merge_nearest(groups: Iterable[Sequence[VectorHit]], pool: int) -> list[VectorHit]:
    """Best `pool` hits across memories: by distance, ties by memory, entry, version bytes."""
    hits = [hit for group in groups for hit in group]
    hits.sort(key=lambda h: (h.distance, h.key.sort_key()))
    return hits[:pool]
