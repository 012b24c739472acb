"""Remember, Forget, Reactivate and Organize: checks and reads up to a planned commit.

Each operation reads what its pure planner (domain/lifecycle.py) needs and returns a
PlannedWrite; the write engine (write_engine.py) answers request ids, commits and builds
the result, the same for every operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .api import EntryInput, RememberMode
from .backends.database import DatabaseMemoryBackend
from .backends.read_session import ReadSession
from .domain import lifecycle, validation
from .domain.errors import InvalidArgumentError
from .domain.lifecycle import EntryRef, OrganizeStep
from .domain.models import ArtifactRef, EntryState, EntryVersion, Lineage, Revision, SourceRef
from .extracting import CandidateExtraction
from .request_checks import (
    checked_state_change,
    entry_spec,
    require_entry_count,
    require_memory_ref,
    resolve_remember_mode,
)
from .write_engine import PlannedWrite


class EntryWrites:
    def __init__(
        self,
        backend: DatabaseMemoryBackend,
        new_id: lifecycle.IdFactory,
        extraction: CandidateExtraction,
    ) -> None:
        self.backend = backend
        self.new_id = new_id
        self.extraction = extraction

    async def remember(
        self,
        memory: ArtifactRef | None,
        sources: Sequence[SourceRef],
        artifacts: Sequence[ArtifactRef],
        entries: Sequence[EntryInput],
        mode: RememberMode,
        extractors: Sequence[str],
    ) -> PlannedWrite:
        lineage = Lineage(
            "remember",
            validation.validate_source_refs("sources", sources),
            validation.validate_artifact_refs("artifacts", artifacts),
        )
        if resolve_remember_mode(mode, entries, lineage) is RememberMode.EXTRACT:
            return await self._extract(memory, lineage, tuple(extractors))
        if extractors:
            raise InvalidArgumentError("extractors", "only with EXTRACT (evidence, no entries)")
        require_entry_count(len(entries))
        specs = [entry_spec(f"entries[{i}]", e) for i, e in enumerate(entries)]
        if memory is not None:
            require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory) if memory is not None else None
            predecessors = await _revise_targets(session, base, specs)
        plan = self._plan_remember(base, lineage, specs, predecessors)
        return PlannedWrite(base, plan.commit, plan.results)

    async def _extract(
        self, memory: ArtifactRef | None, lineage: Lineage, extractors: tuple[str, ...]
    ) -> PlannedWrite:
        """What the candidate pipeline proposes and passes the APPEND checks, as one Remember
        (nothing admitted: a no-op, never an empty Memory)."""
        found = await self.extraction.run(memory, lineage, extractors)
        if not found.specs:
            return PlannedWrite(found.base, None, suggestions=found.suggestions)
        plan = self._plan_remember(found.base, lineage, found.specs, found.window)
        return PlannedWrite(found.base, plan.commit, plan.results, found.entries, found.suggestions)

    def _plan_remember(
        self,
        base: Revision | None,
        lineage: Lineage,
        specs: Sequence[lifecycle.EntryInputSpec],
        predecessors: Mapping[str, EntryVersion],
    ) -> lifecycle.RememberPlan:
        """The pure plan of a Remember on `base` (a new memory's id when there is none)."""
        return lifecycle.plan_remember(
            artifact_id=base.ref.artifact_id if base else self.new_id(lifecycle.ARTIFACT_ID_PREFIX),
            base=base,
            lineage=lineage,
            inputs=specs,
            predecessors=predecessors,
            new_id=self.new_id,
        )

    async def forget(
        self, memory: ArtifactRef, entries: Sequence[EntryRef], reason: str | None
    ) -> PlannedWrite:
        refs, reason = checked_state_change(memory, entries, reason)
        async with self.backend.read() as session:
            base = await session.current(memory)
        return PlannedWrite(base, lifecycle.plan_forget(base, refs, reason, Lineage("forget")))

    async def reactivate(
        self, memory: ArtifactRef, entries: Sequence[EntryRef], reason: str | None
    ) -> PlannedWrite:
        refs, reason = checked_state_change(memory, entries, reason)
        async with self.backend.read() as session:
            base = await session.current(memory)
            wanted = [
                r.entry_version_id
                for r in refs
                if (e := base.content.entry(r.entry_id)) is not None
                and e.entry_version_id == r.entry_version_id
                and e.state is EntryState.INACTIVE
            ]
            versions = await session.versions(wanted)
        plan = lifecycle.plan_reactivate(base, refs, reason, Lineage("reactivate"), versions)
        return PlannedWrite(base, plan)

    async def organize(self, memory: ArtifactRef, steps: Sequence[OrganizeStep]) -> PlannedWrite:
        require_memory_ref("memory", memory)
        async with self.backend.read() as session:
            base = await session.current(memory)
            versions: dict[str, EntryVersion] = {}
            if not steps or OrganizeStep.NORMALIZE in steps:
                versions = await session.versions(
                    [
                        e.entry_version_id
                        for e in base.content.entries
                        if e.state is EntryState.ACTIVE
                    ]
                )
        plan = lifecycle.plan_organize(base, steps, Lineage("organize"), versions, self.new_id)
        return PlannedWrite(base, plan)


async def _revise_targets(
    session: ReadSession, base: Revision | None, specs: Sequence[lifecycle.EntryInputSpec]
) -> dict[str, EntryVersion]:
    """Load the current versions that revise inputs name (the planner rejects the rest)."""
    if base is None:
        return {}
    wanted = []
    for spec in specs:
        if spec.target is None:
            continue
        entry = base.content.entry(spec.target.entry_id)
        if entry is not None and entry.entry_version_id == spec.target.entry_version_id:
            wanted.append(entry.entry_version_id)
    return await session.versions(wanted)
