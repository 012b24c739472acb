"""Remember EXTRACT: candidate entries proposed from the operation's evidence, then admitted.

The candidate pipeline (candidates/) runs outside any transaction over the operation's
persisted sources and the head's active entries. Its candidates are untrusted, so each is
admitted only if it passes the same checks as an APPEND entry; the write itself is planned
by entry_writes.py like any Remember.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Sequence

from .api import EntryInput, Hit, SearchMode
from .backends.database import DatabaseMemoryBackend
from .backends.read_session import ReadSession
from .candidates import ActiveEntry, Candidate, CandidatePipeline, ExtractionInput, Suggestion
from .candidates.port import ReadSource
from .domain import lifecycle, validation
from .domain.errors import CapabilityNotSupportedError, InvalidArgumentError
from .domain.lifecycle import EntryRef
from .domain.models import (
    ArtifactRef,
    EntryState,
    EntryVersion,
    Lineage,
    Revision,
    Source,
    SourceRef,
)
from .request_checks import entry_spec, require_memory_ref
from .search_requests import SearchRequests
from .security.caller import current_caller

logger = logging.getLogger(__name__)

# EXTRACT reads at most this many active entries of the head (the candidate window), and the
# user-note adapter looks at this many full-text hits.
CANDIDATE_WINDOW = 1000
CANDIDATE_SEARCH_LIMIT = 10


@dataclasses.dataclass(frozen=True)
class Extracted:
    """The admitted candidates (as entries and as specs, same order) and the suggestions,
    with the head they were extracted at and its active window (what they may revise)."""

    base: Revision | None
    window: dict[str, EntryVersion]
    entries: tuple[EntryInput, ...]
    specs: list[lifecycle.EntryInputSpec]
    suggestions: tuple[Suggestion, ...]


class CandidateExtraction:
    def __init__(
        self,
        backend: DatabaseMemoryBackend,
        pipeline: CandidatePipeline,
        searches: SearchRequests,
        read_source: ReadSource,
    ) -> None:
        self.backend = backend
        self.pipeline = pipeline
        self.searches = searches
        self.read_source = read_source

    async def run(
        self, memory: ArtifactRef | None, lineage: Lineage, extractors: tuple[str, ...]
    ) -> Extracted:
        selected = self.pipeline.select(extractors)
        if memory is not None:
            require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory) if memory is not None else None
            sources = [
                await _operation_source(session, f"sources[{i}]", ref)
                for i, ref in enumerate(lineage.sources)
            ]
            window = await _active_window(session, base)

        async def search_head(query: str) -> list[Hit]:
            return await self._search_head(base, query)

        request = ExtractionInput(
            sources, [_active_entry(v) for v in window.values()], search_head, self.read_source
        )
        found = await self.pipeline.run(request, selected)
        entries, specs = _admitted(found.candidates, request, window)
        return Extracted(base, window, entries, specs, tuple(found.suggestions))

    async def _search_head(self, base: Revision | None, query: str) -> list[Hit]:
        """Full-text hits among the head's active entries, for the user-note adapter."""
        if base is None:
            return []
        try:
            found = await self.searches.search(
                query[: validation.MAX_QUERY_CHARS], [base.ref], CANDIDATE_SEARCH_LIMIT,
                SearchMode.FTS,
            )  # fmt: skip
        except CapabilityNotSupportedError:
            return []  # no full text here: the note then names no entry
        return found.hits


async def _operation_source(session: ReadSession, field_name: str, ref: SourceRef) -> Source:
    """A source the operation names, read and hash-verified (EXTRACT reads what it cites)."""
    source = await session.source(ref.source_id, current_caller().source_scope)
    if source.content_hash != ref.content_hash:
        raise InvalidArgumentError(
            field_name,
            f"source {ref.source_id} has hash {source.content_hash}, not {ref.content_hash}",
            reason="SOURCE_HASH_MISMATCH",
        )
    return source


async def _active_window(session: ReadSession, base: Revision | None) -> dict[str, EntryVersion]:
    """The current versions of the head's active entries, at most CANDIDATE_WINDOW of them
    (manifest order), by version id: what candidates may revise and are compared with."""
    if base is None:
        return {}
    active = [e.entry_version_id for e in base.content.entries if e.state is EntryState.ACTIVE]
    return await session.versions(active[:CANDIDATE_WINDOW])


def _active_entry(version: EntryVersion) -> ActiveEntry:
    content = version.content
    ref = EntryRef(version.entry_id, version.entry_version_id)
    return ActiveEntry(ref, content.kind, content.text, content.source_refs)


def _admitted(
    candidates: Sequence[Candidate], request: ExtractionInput, window: dict[str, EntryVersion]
) -> tuple[tuple[EntryInput, ...], list[lifecycle.EntryInputSpec]]:
    """The candidates that pass the APPEND checks, as entries and specs (same order).

    Candidates are untrusted: one that cites nothing, cites evidence outside the operation,
    revises an entry that is not a current active version, or fails an entry check (kind,
    text, the secret guard) is refused — left out and logged without its text — and the
    others still go ahead. The planner then checks the rest again, like any APPEND.
    """
    allowed = request.refs()
    entries: list[EntryInput] = []
    specs: list[lifecycle.EntryInputSpec] = []
    for candidate in candidates:
        problem = ""
        if not candidate.sources or not set(candidate.sources) <= allowed:
            problem = "cites evidence outside the operation (EVIDENCE_NOT_ALLOWED)"
        elif candidate.target is not None and (
            (current := window.get(candidate.target.entry_version_id)) is None
            or current.entry_id != candidate.target.entry_id
        ):
            problem = "revises an entry that is not a current active version"
        # A candidate revising an entry keeps that version's tags (a revision replaces tags,
        # and adapters never propose any); its description is derived like any other.
        revised = window.get(candidate.target.entry_version_id) if candidate.target else None
        entry = EntryInput(
            candidate.target, candidate.kind, candidate.text, candidate.sources, (),
            candidate.reason, tags=revised.content.tags if revised else (),
        )  # fmt: skip
        if not problem:
            try:
                spec = entry_spec(f"candidates[{len(entries)}]", entry)
                specs.append(spec)
                entries.append(dataclasses.replace(entry, description=spec.content.description))
                continue
            except InvalidArgumentError as error:
                problem = f"{error.reason}: {error.message}"
        logger.warning("refused a %s candidate: %s", candidate.adapter, problem)
    return tuple(entries), specs
