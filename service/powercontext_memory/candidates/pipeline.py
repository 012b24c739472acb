"""CandidatePipeline: the deterministic adapters and optional model extractors, run in
a fixed order over one operation, their proposals reconciled into one deterministic list.

The pipeline never writes and never trusts itself: the service validates what it returns
like APPEND entries. Reconciliation only removes what would be noise:

- an add whose text equals an active entry's text, a revision's new text or an earlier
  add's text (re-running bootstrap on unchanged files proposes nothing new);
- a second revision of an entry already revised by an earlier adapter (git change first);
- a suggestion equal to an earlier one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..domain.errors import CapabilityNotSupportedError, InvalidArgumentError
from ..domain.models import Source
from . import agent_rules, build_targets, git_change, pyproject, task_outcome, user_note
from .port import Candidate, Extraction, ExtractionInput, Extractor
from .sources import (
    AGENT_RULES,
    BUILD_TARGETS,
    GIT_CHANGE,
    PYPROJECT,
    TASK_OUTCOME,
    USER_NOTE,
    file_format,
)


@dataclass(frozen=True)
class _FileAdapter:
    """A deterministic adapter over the operation's file sources its name covers."""

    name: str

    async def extract(self, request: ExtractionInput) -> Extraction:
        out = Extraction()
        for source in request.sources:
            fmt = file_format(source)
            if fmt is not None and fmt[0] == self.name:
                out.candidates.extend(_derive(self.name, source, request.sources))
        return out


def _derive(name: str, source: Source, siblings: Sequence[Source]) -> list[Candidate]:
    if name == PYPROJECT:
        return pyproject.derive(source, siblings)
    if name == BUILD_TARGETS:
        return build_targets.derive(source, siblings)
    return agent_rules.derive(source, siblings)


@dataclass(frozen=True)
class _FunctionAdapter:
    name: str
    kind: str

    async def extract(self, request: ExtractionInput) -> Extraction:
        if self.kind == TASK_OUTCOME:
            out = Extraction()
            for source in request.sources:
                out.candidates.extend(task_outcome.derive(source, request.entries))
            return out
        if self.kind == GIT_CHANGE:
            return await git_change.extract(request)
        return await user_note.extract(request)


# Fixed order: revisions from git changes come before the adds of the same files.
ADAPTERS: Final[tuple[Extractor, ...]] = (
    _FunctionAdapter(GIT_CHANGE, GIT_CHANGE),
    _FileAdapter(PYPROJECT),
    _FileAdapter(BUILD_TARGETS),
    _FileAdapter(AGENT_RULES),
    _FunctionAdapter(TASK_OUTCOME, TASK_OUTCOME),
    _FunctionAdapter(USER_NOTE, USER_NOTE),
)
MAX_SELECTED: Final = 16


class CandidatePipeline:
    """The deterministic adapters (always available) plus the configured model extractors."""

    def __init__(self, models: Sequence[Extractor] = ()) -> None:
        self.adapters: tuple[Extractor, ...] = ADAPTERS
        self.models: tuple[Extractor, ...] = tuple(models)

    @property
    def adapter_names(self) -> list[str]:
        return [a.name for a in self.adapters]

    @property
    def extractor_names(self) -> list[str]:
        return [m.name for m in self.models]

    def select(self, names: Sequence[str]) -> tuple[Extractor, ...]:
        """The extractors `names` selects, in pipeline order (empty: all of them)."""
        every = (*self.adapters, *self.models)
        if not names:
            return every
        if len(names) > MAX_SELECTED:
            raise InvalidArgumentError("extractors", f"at most {MAX_SELECTED} names")
        known = {e.name for e in every}
        for i, name in enumerate(names):
            if name not in known:
                available = ", ".join(sorted(known))
                raise CapabilityNotSupportedError(
                    f"extractors[{i}]",
                    f"extractors[{i}]: {name!r} is not an available candidate adapter or "
                    f"extractor here (available: {available})",
                )
        wanted = set(names)
        return tuple(e for e in every if e.name in wanted)

    async def run(self, request: ExtractionInput, selected: Sequence[Extractor]) -> Extraction:
        found = Extraction()
        for extractor in selected:
            part = await extractor.extract(request)
            found.candidates.extend(part.candidates)
            found.suggestions.extend(part.suggestions)
        return reconcile(found, request)


def reconcile(found: Extraction, request: ExtractionInput) -> Extraction:
    known = {e.text for e in request.entries}
    revised: set[str] = set()
    out = Extraction()
    for candidate in found.candidates:
        if candidate.target is not None:
            if candidate.target.entry_id in revised:
                continue
            revised.add(candidate.target.entry_id)
            known.add(candidate.text)
            out.candidates.append(candidate)
    for candidate in found.candidates:
        if candidate.target is None and candidate.text not in known:
            known.add(candidate.text)
            out.candidates.append(candidate)
    for suggestion in found.suggestions:
        if suggestion not in out.suggestions:
            out.suggestions.append(suggestion)
    return out
