"""The full-text channel's own index: per-memory inverted lists over the head projection.

FTS5's bm25 over every match of common words was most of a search's cost, and the engines'
windows only approximate the domain's order. This process keeps, per memory, the head projection's
searchable text as inverted lists in NumPy (term -> slots and term frequencies, in CSR form
plus a small delta of later additions), and ranks *every* admitted match exactly by the
domain's BM25 (domain/fts_rank.py: the same formula, the same operation order, so the same
bits as the window ranking) — identically on every backend (timed by bench/search_cache.py).

Like the vector index (vector_index.py) a memory is loaded once from the projection, in pages,
then kept at the head by reading only the entries later revisions changed (or by following
this process's own commits without a read). The projection is not authoritative: every hit is
still confirmed against the head manifest (verify.py). Removed documents leave dead slots that
are dropped when they outnumber a quarter of the lists (compaction renumbers the slots).

The index is bounded by its postings (term occurrences per document): a memory that does not
fit is searched by the engine's own full-text query instead (FullTextChannel's window).
"""

from __future__ import annotations

import asyncio
import sys
from array import array
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import repeat

import numpy as np
import numpy.typing as npt

from ..backends.port import HeadCondition, HeadProjectionRow, HotReads
from ..domain import fts_rank, fusion
from ..domain.descriptions import TAG_DELIMITER
from ..domain.interning import shared_ids
from ..domain.models import ArtifactRef
from .ranked import Ranked
from .release import release_free_memory

LOAD_PAGE_ROWS = 4096  # projection rows per read when a memory is first loaded
# Postings one process keeps over all memories (8 bytes each, plus each entry's ids and
# metadata): enough for a few hundred thousand entries of typical length.
DEFAULT_MAX_POSTINGS = 8_000_000
_INITIAL_SLOTS = 64
_MIN_DELTA_FOR_COMPACTION = 4096
_NO_TAGS: frozenset[str] = frozenset()
_NORM_TABLE_MAX = 65_536  # tokens: a longer document makes rank compute norms per posting
_THRESHOLD_SAMPLE = 256  # scores sampled for a lower bound of the pool's threshold

# (artifact_id, first, last) -> ids of the entries that revisions first..last changed.
ChangedEntries = Callable[[str, int, int], Awaitable[set[str]]]
Slots = npt.NDArray[np.int64]


class MemoryText:
    """One memory's head projection as inverted lists, at one head revision."""

    def __init__(self, artifact_id: str, revision: int) -> None:
        self.artifact_id = artifact_id
        self.revision = revision
        # Per slot (a slot is never reused before a compaction renumbers them).
        self.keys: list[tuple[str, str, str] | None] = []  # entry id, version id, content hash
        self.kinds: list[str] = []
        self.tags: list[frozenset[str]] = []
        self.lengths = np.zeros(_INITIAL_SLOTS, dtype=np.int32)  # tokens per document
        self.longest = 0  # the most tokens any document has had (bounds the norm table)
        self.live = np.zeros(_INITIAL_SLOTS, dtype=bool)
        self.slots: dict[str, int] = {}  # entry id -> slot
        # Postings: CSR over term ids (offsets into slots/tf), plus the delta added since.
        self.vocabulary: dict[str, int] = {}
        self.offsets = np.zeros(1, dtype=np.int64)
        # Stored narrow (8 bytes a posting) and widened per queried term, so the ranking's
        # arithmetic is float64, bit for bit the domain's; indexing with the narrow arrays
        # directly made NumPy cast them inside every use (bench/search_cache.py).
        self.posting_slots = np.zeros(0, dtype=np.int32)
        self.posting_tf = np.zeros(0, dtype=np.float32)
        # Typed arrays, not lists: a first load puts every posting here, and millions of int
        # and float objects leave the allocator's arenas fragmented (RSS: bench/hybrid.py --large).
        self.delta: dict[int, tuple[array[int], array[float]]] = {}
        self.delta_postings = 0
        self.dead = 0  # removed documents whose postings are still in the lists

    @property
    def documents(self) -> int:
        return len(self.slots)

    @property
    def postings(self) -> int:
        return len(self.posting_slots) + self.delta_postings

    # -- changes ---------------------------------------------------------------------------------

    def remove(self, entry_id: str) -> None:
        slot = self.slots.pop(entry_id, None)
        if slot is not None:
            self.live[slot] = False
            self.keys[slot] = None
            self.dead += 1

    def put(self, row: HeadProjectionRow) -> None:
        """The row's document replaces the entry's (if any)."""
        self.remove(row.entry_id)
        slot = len(self.keys)
        if slot == len(self.live):
            self._grow(slot + 1)
        tokens = row.searchable_text.split(" ")  # exactly as fts_rank splits a window's text
        for token, count in Counter(tokens).items():
            term = self.vocabulary.setdefault(token, len(self.vocabulary))
            slots, tfs = self.delta.setdefault(term, (array("q"), array("d")))
            slots.append(slot)
            tfs.append(float(count))
        self.delta_postings += len(set(tokens))
        key = shared_ids(row.entry_id, row.entry_version_id, row.entry_content_hash)
        self.keys.append(key)
        # Kinds and tag sets repeat across documents: one shared object each (memory per entry).
        self.kinds.append(sys.intern(row.kind))
        self.tags.append(
            frozenset(t for t in row.tags.split(TAG_DELIMITER) if t) if row.tags else _NO_TAGS
        )
        self.lengths[slot] = len(tokens)
        self.longest = max(self.longest, len(tokens))
        self.live[slot] = True
        self.slots[key[0]] = slot

    def _grow(self, slots: int) -> None:
        capacity = len(self.live)
        while capacity < slots:
            capacity = max(capacity * 2, _INITIAL_SLOTS)
        lengths = np.zeros(capacity, dtype=np.int32)
        lengths[: len(self.lengths)] = self.lengths
        live = np.zeros(capacity, dtype=bool)
        live[: len(self.live)] = self.live
        self.lengths, self.live = lengths, live

    def settle(self) -> None:
        """Fold the delta into the lists once it is large, and drop dead slots once they are
        many: amortized, so that a query reads mostly contiguous arrays."""
        base = len(self.posting_slots)
        if self.delta_postings > max(_MIN_DELTA_FOR_COMPACTION, base // 8) or (
            self.dead > max(_MIN_DELTA_FOR_COMPACTION // 4, len(self.keys) // 4)
        ):
            self._compact()

    def _compact(self) -> None:
        terms = len(self.vocabulary)
        counts = np.diff(self.offsets)
        base_terms = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        delta_terms = [np.full(len(s), t, dtype=np.int64) for t, (s, _) in self.delta.items()]
        delta_slots = [np.array(s, dtype=np.int64) for s, _ in self.delta.values()]
        delta_tf = [np.array(f, dtype=np.float64) for _, f in self.delta.values()]
        term_ids = np.concatenate([base_terms, *delta_terms])
        slots = np.concatenate([self.posting_slots, *delta_slots])
        tf = np.concatenate([self.posting_tf, *delta_tf])
        used = len(self.keys)
        keep = self.live[slots]
        term_ids, slots, tf = term_ids[keep], slots[keep], tf[keep]
        # Renumber live slots densely, keeping their order.
        renumber = np.cumsum(self.live[:used]) - 1
        slots = renumber[slots]
        order = np.argsort(term_ids, kind="stable")
        term_ids, slots, tf = term_ids[order], slots[order], tf[order]
        # Terms no document holds any more leave the vocabulary.
        present = np.bincount(term_ids, minlength=terms) > 0
        new_ids = np.cumsum(present) - 1
        self.vocabulary = {w: int(new_ids[i]) for w, i in self.vocabulary.items() if present[i]}
        per_term = np.bincount(new_ids[term_ids], minlength=len(self.vocabulary))
        self.offsets = np.concatenate([[0], np.cumsum(per_term)]).astype(np.int64)
        self.posting_slots, self.posting_tf = slots.astype(np.int32), tf.astype(np.float32)
        alive = [i for i in range(used) if self.live[i]]
        self.keys = [self.keys[i] for i in alive]
        self.kinds = [self.kinds[i] for i in alive]
        self.tags = [self.tags[i] for i in alive]
        lengths = self.lengths[:used][self.live[:used]]
        self.lengths = np.zeros(max(len(alive), _INITIAL_SLOTS), dtype=np.int32)
        self.lengths[: len(alive)] = lengths
        self.live = np.zeros(len(self.lengths), dtype=bool)
        self.live[: len(alive)] = True
        self.slots = {key[0]: i for i, key in enumerate(self.keys) if key is not None}
        self.delta, self.delta_postings, self.dead = {}, 0, 0

    # -- queries ---------------------------------------------------------------------------------

    def term_postings(self, term: str) -> tuple[Slots, npt.NDArray[np.float64]]:
        """Live slots holding `term` and its frequency in each."""
        tid = self.vocabulary.get(term)
        if tid is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        slots: Slots
        if tid + 1 < len(self.offsets):
            start, end = self.offsets[tid], self.offsets[tid + 1]
            slots = self.posting_slots[start:end].astype(np.int64)
            tf = self.posting_tf[start:end].astype(np.float64)
        else:
            slots, tf = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
        added = self.delta.get(tid)
        if added is not None:
            slots = np.concatenate([slots, np.array(added[0], dtype=np.int64)])
            tf = np.concatenate([tf, np.array(added[1], dtype=np.float64)])
        if self.dead:
            alive = self.live[slots]
            slots, tf = slots[alive], tf[alive]
        return slots, tf

    def eligible(self, condition: HeadCondition, candidates: Slots) -> Slots:
        """The candidates whose kind and tags meet `condition` (compared exactly)."""
        kinds = frozenset(condition.kinds)
        wanted = [n.strip(TAG_DELIMITER) for n in condition.tag_needles]
        kept = []
        for slot in candidates.tolist():
            if kinds and self.kinds[slot] not in kinds:
                continue
            if wanted:
                held = self.tags[slot]
                found = (t in held for t in wanted)
                if not (all(found) if condition.all_tags else any(found)):
                    continue
            kept.append(slot)
        return np.asarray(kept, dtype=np.int64)


@dataclass
class _Matches:
    """One memory's admitted documents for a query, before the statistics are joined."""

    memory: MemoryText
    candidates: Slots  # the admitted slots, ascending
    postings: list[tuple[Slots, npt.NDArray[np.float64]]]  # per term, every live slot
    frequencies: list[int]  # per term, the admitted documents holding it
    total_length: float


def _matches(
    memory: MemoryText, terms: Sequence[str], required: int, condition: HeadCondition | None
) -> _Matches:
    postings = [memory.term_postings(t) for t in terms]
    size = len(memory.keys)
    listed = [slots for slots, _ in postings]
    if required == 1 and condition is None:
        # Every listed slot is admitted (a term's list holds a slot at most once).
        admitted = np.zeros(size, dtype=bool)
        for slots in listed:
            admitted[slots] = True
        frequencies = [len(slots) for slots in listed]
    else:
        matched = np.bincount(np.concatenate(listed), minlength=size)
        admitted = matched >= required
        if condition is not None:
            kept = memory.eligible(condition, np.flatnonzero(admitted))
            admitted = np.zeros(size, dtype=bool)
            admitted[kept] = True
        frequencies = [int(np.count_nonzero(admitted[slots])) for slots in listed]
    candidates = np.flatnonzero(admitted)
    total = float(memory.lengths[candidates].sum())  # an integer sum: exact
    return _Matches(memory, candidates, postings, frequencies, total)


def _norm_table(memory: MemoryText, average: float) -> npt.NDArray[np.float64] | None:
    """length_norm of every length 0..longest, to be looked up per posting: a norm per
    posting was most of a term's cost, and the table applies the same operations to the same
    values, so the same bits. None when the memory's longest document makes it too large."""
    if memory.longest > _NORM_TABLE_MAX:
        return None
    return fts_rank.length_norm(np.arange(memory.longest + 1, dtype=np.float64), average)


def _pool_threshold(values: npt.NDArray[np.float64], pool: int) -> float:
    """The pool-th largest of `values` (more than `pool` of them). A partition over a few
    thousand scores was a fifth of a rank; the pool-th largest of a sample is a lower bound of
    it, so only the values at or above that bound need the exact partition."""
    sample = max(_THRESHOLD_SAMPLE, 8 * pool)
    if len(values) > 4 * sample:
        bound = np.partition(values[:sample], sample - pool)[sample - pool]
        values = values[values >= bound]
    return float(np.partition(values, len(values) - pool)[len(values) - pool])


# A named tuple's own __new__ is a Python function; a search builds a pool's worth of keys, so
# they are made by tuple.__new__ directly (the same objects, cheaper).
_hit_key = partial(tuple.__new__, fusion.HitKey)
_ranked = partial(tuple.__new__, Ranked)


def rank(
    memories: Sequence[MemoryText],
    terms: Sequence[str],
    pool: int,
    condition: HeadCondition | None = None,
) -> list[Ranked]:
    """The best `pool` admitted documents of these memories for the distinct query `terms`:
    admission, statistics (over every admitted document of all of them), score and tie-break
    exactly as fts_rank.admit_and_order computes them over a window holding all matches.

    Scores are computed only where a term is listed (a term's norm and score per posting:
    the same operations on each element as over the whole memory, so the same bits), and
    read only at the admitted slots."""
    required = fusion.fts_required_matches(len(frozenset(terms)))
    if not terms or not required:
        return []
    found = [_matches(m, terms, required, condition) for m in memories]
    documents = sum(len(f.candidates) for f in found)
    if not documents:
        return []
    average = fts_rank.average_length(sum(f.total_length for f in found), documents)
    weights = [
        fts_rank.idf(documents, sum(f.frequencies[i] for f in found)) for i in range(len(terms))
    ]
    scored: list[tuple[float, str, tuple[str, str, str]]] = []
    for f in found:
        candidates = f.candidates
        if not len(candidates):
            continue
        memory = f.memory
        score = np.zeros(len(memory.keys), dtype=np.float64)
        norm_of = _norm_table(memory, average)
        for weight, (slots, tf) in zip(weights, f.postings, strict=True):
            lengths = memory.lengths[slots]
            norms = (
                norm_of[lengths]
                if norm_of is not None
                else fts_rank.length_norm(lengths.astype(np.float64), average)
            )
            score[slots] += fts_rank.term_score(weight, tf, norms)
        values = score[candidates]
        if len(candidates) > pool:  # every document scoring at least the pool-th best
            inside = values >= _pool_threshold(values, pool)
            candidates, values = candidates[inside], values[inside]
        # (-score, memory id, (entry id, version id, content hash)): entry ids are unique in a
        # memory, so this sorts like (-score, HitKey.sort_key()); UTF-8 byte order is code
        # point order. Admitted slots are live: their keys are never None.
        keys = map(memory.keys.__getitem__, candidates.tolist())
        scored.extend(zip((-values).tolist(), repeat(memory.artifact_id), keys))  # type: ignore[arg-type]
    scored.sort()
    return [
        _ranked((_hit_key((memory_id, key[0], key[1])), key[2], -negated))
        for negated, memory_id, key in scored[:pool]
    ]


class TextIndex:
    """Per-process MemoryText of recently searched memories, brought to the head before use,
    least recently used dropped past `max_postings`."""

    def __init__(self, max_postings: int = DEFAULT_MAX_POSTINGS) -> None:
        self.max_postings = max_postings
        self._memories: OrderedDict[str, MemoryText] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        # Memories found not to fit: searched by the engine from then on in this process (a
        # memory that large would otherwise be read in full again at every new head).
        self._too_large: set[str] = set()

    @property
    def enabled(self) -> bool:
        return self.max_postings > 0

    def forget(self) -> None:
        self._memories.clear()
        self._too_large.clear()

    def held(self) -> int:
        return sum(m.postings for m in self._memories.values())

    async def at_head(
        self, tx: HotReads, head: ArtifactRef, changed_since: ChangedEntries
    ) -> MemoryText | None:
        """The memory's index at `head`, or None when it does not fit (search it by engine)."""
        if not self.enabled or head.artifact_id in self._too_large:
            return None
        lock = self._locks.setdefault(head.artifact_id, asyncio.Lock())
        async with lock:
            current = self._memories.pop(head.artifact_id, None)
            if current is None or current.revision > head.revision:
                current = await self._load(tx, head)
            elif current.revision < head.revision:
                entries = await changed_since(head.artifact_id, current.revision + 1, head.revision)
                await self._refresh(tx, current, entries)
                current.revision = head.revision
            if current is None or current.postings > self.max_postings:
                self._too_large.add(head.artifact_id)
                return None
            current.settle()
            self._memories[head.artifact_id] = current
            self._evict(keep=head.artifact_id)
            return current

    def apply_commit(
        self,
        artifact_id: str,
        base_revision: int,
        next_revision: int,
        rows: Sequence[HeadProjectionRow],
        removals: Sequence[str],
    ) -> None:
        """Follow a commit of this process without a read, when the index is at its base
        (otherwise the next search catches up from the stored changes)."""
        memory = self._memories.get(artifact_id)
        if memory is None or memory.revision != base_revision:
            return
        for entry_id in removals:
            memory.remove(entry_id)
        for row in rows:
            memory.put(row)
        memory.revision = next_revision

    def _evict(self, keep: str) -> None:
        total = self.held()
        while total > self.max_postings and len(self._memories) > 1:
            oldest = next(iter(self._memories))
            if oldest == keep:
                self._memories.move_to_end(oldest)
                continue
            total -= self._memories.pop(oldest).postings

    async def _load(self, tx: HotReads, head: ArtifactRef) -> MemoryText | None:
        memory = MemoryText(head.artifact_id, head.revision)
        after: str | None = None
        while True:
            page = await tx.head_text_rows(
                head.artifact_id, None, after=after, limit=LOAD_PAGE_ROWS
            )
            for row in page:
                memory.put(row)
            memory.settle()  # page by page: the delta never holds a whole memory's postings
            if memory.postings > self.max_postings:
                return None  # stop reading: it will not be kept
            if len(page) < LOAD_PAGE_ROWS:
                memory.settle()
                release_free_memory()
                return memory
            after = page[-1].entry_id
            await asyncio.sleep(0)  # a large first load does not hold the loop for all pages

    async def _refresh(self, tx: HotReads, memory: MemoryText, entries: set[str]) -> None:
        found = {
            r.entry_id: r for r in await tx.head_text_rows(memory.artifact_id, sorted(entries))
        }
        for entry_id in entries:
            row = found.get(entry_id)
            if row is None:
                memory.remove(entry_id)  # no longer an active head row
            else:
                memory.put(row)
