"""PrepareContext: the block of active entries an agent gets before its next task.

Validation and reads; the block's shape, order and budget are domain/context_block.py. All
three sections are read in one read session at the heads named in the response (an
optimistic one, as Search's: at warm heads, the heads read is its only statement):

- RULES: active constraints and preferences, found through the head projection joined with
  the versions' kind (once per memory revision and process, backends/kind_rows_cache.py; at
  a new head, only the entries changed since a cached revision), confirmed against the
  authoritative head manifest, and their text taken from verified versions only for rows
  whose line could still fit.
- RELEVANT: the query's search hits (the Search path, mode AUTO), minus entries already listed
  and working notes.
- RECENT_NOTES: the most recently written active working note.

Reading every active version (verified) only to learn its kind would cost more than the whole
call may take at a thousand entries; the kind join reads no text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .api import SearchMode
from .backends.database import DatabaseMemoryBackend
from .backends.kind_rows_cache import KindRowsCache
from .backends.port import HeadKindRow
from .backends.read_session import ReadSession
from .domain import analyzer, validation
from .domain import context_block as cb
from .domain.canonical import nfc
from .domain.errors import CapabilityNotSupportedError, InvalidArgumentError
from .domain.models import ArtifactRef, Citation, EntryState, MemoryContent
from .query_vectors import QueryVectors
from .request_checks import heads_named
from .search.searcher import Searcher

MAX_MEMORIES = 32
# A head at most this many revisions past the newest cached one is followed through their
# changes; further ahead, its rows are read whole (one statement either way).
FOLLOW_REVISIONS = 64


@dataclass(frozen=True, slots=True)
class PreparedContext:
    block: str
    lines: tuple[cb.ContextLine, ...]
    memories: tuple[ArtifactRef, ...]  # the heads read, in request order (duplicates once)
    omitted: int


def check_budget(budget_bytes: int) -> int:
    if budget_bytes == 0:
        return cb.DEFAULT_BUDGET_BYTES
    if not cb.MIN_BUDGET_BYTES <= budget_bytes <= cb.MAX_BUDGET_BYTES:
        raise InvalidArgumentError(
            "budget_bytes",
            f"must be 0 (= {cb.DEFAULT_BUDGET_BYTES}) or between {cb.MIN_BUDGET_BYTES} and "
            f"{cb.MAX_BUDGET_BYTES}",
        )
    return budget_bytes


def check_query(query: str) -> str:
    query = nfc(query).strip()
    if len(query) > validation.MAX_QUERY_CHARS:
        raise InvalidArgumentError("query", f"exceeds {validation.MAX_QUERY_CHARS} characters")
    return query


def check_memories(memories: Sequence[ArtifactRef]) -> None:
    if not memories:
        raise InvalidArgumentError("memories", "select at least one memory")
    if len(memories) > MAX_MEMORIES:
        raise InvalidArgumentError("memories", f"at most {MAX_MEMORIES} memories")
    for i, ref in enumerate(memories):
        validation.require_id(f"memories[{i}].artifact_id", ref.artifact_id)
        validation.require_revision(f"memories[{i}].revision", ref.revision, allow_head=True)


class ContextPreparation:
    """PrepareContext over one database, searching with the service's searcher and query
    vectors (the RELEVANT section is a Search in mode AUTO)."""

    def __init__(
        self, backend: DatabaseMemoryBackend, searcher: Searcher, query_vectors: QueryVectors
    ) -> None:
        self.backend = backend
        self.searcher = searcher
        self.query_vectors = query_vectors

    async def prepare(
        self, memories: Sequence[ArtifactRef], query: str, budget_bytes: int
    ) -> PreparedContext:
        """The block of active entries for an agent's next task."""
        check_memories(memories)
        query = check_query(query)
        budget = check_budget(budget_bytes)
        query_vector, problem = (
            await self.query_vectors.for_query(query, SearchMode.AUTO) if query else (None, "")
        )
        kind_rows = self.backend.kind_rows

        async def block_at_heads(session: ReadSession) -> PreparedContext:
            packer = cb.Packer(budget)
            found = await session.heads(list(dict.fromkeys(r.artifact_id for r in memories)))
            heads = heads_named(memories, found)
            rows = await _confirmed_rows(session, kind_rows, heads, (*cb.RULE_KINDS, cb.NOTE_KIND))
            order = {h.artifact_id: i for i, h in enumerate(heads)}
            head_of = {h.artifact_id: h for h in heads}
            listed: set[tuple[str, str]] = set()

            rules = sorted(
                (r for r in rows if r.kind in cb.RULE_KINDS),
                key=lambda r: cb.rule_order(
                    r.kind, r.created_in_revision, order[r.memory_artifact_id], r.entry_id
                ),
            )
            await _offer_rows(session, packer, rules, head_of, cb.Section.RULES, listed)

            if query:
                await _offer_relevant(
                    self.searcher, session, packer, heads, query, query_vector, problem, listed
                )

            notes = sorted(
                (
                    r
                    for r in rows
                    if r.kind == cb.NOTE_KIND and (r.memory_artifact_id, r.entry_id) not in listed
                ),
                key=lambda r: cb.note_order(
                    r.created_in_revision, order[r.memory_artifact_id], r.entry_id
                ),
            )[: cb.RECENT_NOTES_LIMIT]
            await _offer_rows(session, packer, notes, head_of, cb.Section.RECENT_NOTES, listed)
            block = packer.block()
            return PreparedContext(block.text, block.lines, tuple(heads), block.omitted)

        # Warm (rows cached at these heads, versions verified, indexes current), a call reads
        # nothing but the heads: one statement, no transaction begun (as Search).
        return await self.backend.optimistic_read(block_at_heads)


async def _confirmed_rows(
    session: ReadSession,
    cache: KindRowsCache,
    heads: Sequence[ArtifactRef],
    kinds: tuple[str, ...],
) -> list[HeadKindRow]:
    """Projection rows of these kinds that the head manifests confirm (active, same version,
    same hash); a projection row not backed by the manifest is never used (as in Search).
    A memory's rows at a revision are read once per process (backends/kind_rows_cache.py),
    and at a new head only the rows of the entries changed since are (`_followed`)."""
    out: list[HeadKindRow] = []
    whole: dict[str, list[HeadKindRow]] = {}  # memories read whole, in one statement
    for head in heads:
        rows: Sequence[HeadKindRow] | None = cache.get((head.artifact_id, head.revision, kinds))
        if rows is None:
            rows = await _followed(session, cache, head, kinds)
        if rows is None:
            whole[head.artifact_id] = []
        else:
            out.extend(rows)
    if whole:
        for row in await session.tx.head_rows_of_kinds(list(whole), kinds):
            if row.memory_artifact_id in whole:
                whole[row.memory_artifact_id].append(row)
        for head in heads:
            if head.artifact_id in whole:
                out.extend(await _kept(session, cache, head, kinds, whole[head.artifact_id]))
    return out


async def _followed(
    session: ReadSession, cache: KindRowsCache, head: ArtifactRef, kinds: tuple[str, ...]
) -> list[HeadKindRow] | None:
    """The rows at `head` from those of the newest revision cached before it: the entries
    its changes since then name are read again, the others kept. None when no cached
    revision is within FOLLOW_REVISIONS of the head."""
    newest = cache.newest(head.artifact_id, kinds)
    if newest is None or not 0 < head.revision - newest[0] <= FOLLOW_REVISIONS:
        return None
    revision, rows = newest
    history = await session.changes(head.artifact_id, revision + 1, head.revision)
    changed = sorted({change.entry_id for item in history for change in item.changes})
    fresh = (
        await session.tx.head_rows_of_kinds([head.artifact_id], kinds, entry_ids=changed)
        if changed
        else []
    )
    named = set(changed)
    kept = [row for row in rows if row.entry_id not in named]
    return await _kept(session, cache, head, kinds, [*kept, *fresh])


async def _kept(
    session: ReadSession,
    cache: KindRowsCache,
    head: ArtifactRef,
    kinds: tuple[str, ...],
    rows: Sequence[HeadKindRow],
) -> list[HeadKindRow]:
    """`rows` that the manifest at `head` confirms, cached for that revision."""
    content = (await session.revision(head)).content
    confirmed = [row for row in rows if _backed(content, row)]
    cache.put((head.artifact_id, head.revision, kinds), confirmed)
    return confirmed


def _backed(content: MemoryContent, row: HeadKindRow) -> bool:
    entry = content.entry(row.entry_id)
    return (
        entry is not None
        and entry.state is EntryState.ACTIVE
        and entry.entry_version_id == row.entry_version_id
        and entry.entry_content_hash == row.entry_content_hash
    )


async def _offer_rows(
    session: ReadSession,
    packer: cb.Packer,
    rows: Sequence[HeadKindRow],
    head_of: dict[str, ArtifactRef],
    section: cb.Section,
    listed: set[tuple[str, str]],
) -> None:
    """Offer rows in order, reading verified text (a batch per statement) only for rows whose
    line could still fit; the others are counted as omitted unread."""
    citations = [_citation(head_of, r) for r in rows]
    least = [cb.least_bytes(r.kind, c) for r, c in zip(rows, citations, strict=True)]
    pending = list(range(len(rows)))
    while pending:
        batch, hopeless = cb.next_batch([least[i] for i in pending], packer.room)
        chosen = [pending[j] for j in batch]
        # As for search hits: the head manifest confirmed each row's version and hash, and
        # a version this process verified before is taken from its cache.
        wanted = [rows[i].entry_version_id for i in chosen]
        versions = await session.versions(wanted, verified_before=True)
        packer.omit(len(hopeless))
        for i in chosen:
            row = rows[i]
            version = versions[row.entry_version_id]
            if version.entry_content_hash != row.entry_content_hash:
                continue  # the manifest confirmed the hash; the verified row disagrees: skip
            kind, text = version.content.kind, version.content.text
            packer.offer(cb.ContextLine(citations[i], kind, text, section))
            listed.add((row.memory_artifact_id, row.entry_id))  # offered: never offered again
        done = set(batch) | set(hopeless)
        pending = [i for j, i in enumerate(pending) if j not in done]


async def _offer_relevant(
    searcher: Searcher,
    session: ReadSession,
    packer: cb.Packer,
    heads: Sequence[ArtifactRef],
    query: str,
    query_vector: npt.NDArray[np.float32] | None,
    problem: str,
    listed: set[tuple[str, str]],
) -> None:
    """The query's hits (Search, mode AUTO) not already listed, best first."""
    if query_vector is None and not analyzer.query_terms(query):
        return  # nothing searchable in the prompt (punctuation only): no RELEVANT section
    limit = min(100, cb.RELEVANT_LIMIT + len(listed))
    try:
        hits, _ = await searcher.run(
            session, heads, query, limit, SearchMode.AUTO, query_vector, problem
        )
    except CapabilityNotSupportedError:
        return  # no search channel works here: the block keeps its other sections
    fresh = [
        h
        for h in hits
        if (h.memory_ref.artifact_id, h.entry_id) not in listed and h.kind != cb.NOTE_KIND
    ]
    for hit in fresh[: cb.RELEVANT_LIMIT]:
        citation = Citation(hit.memory_ref, hit.entry_id, hit.entry_version_id)
        packer.offer(cb.ContextLine(citation, hit.kind, hit.text, cb.Section.RELEVANT))
        listed.add((hit.memory_ref.artifact_id, hit.entry_id))


def _citation(head_of: dict[str, ArtifactRef], row: HeadKindRow) -> Citation:
    return Citation(head_of[row.memory_artifact_id], row.entry_id, row.entry_version_id)
