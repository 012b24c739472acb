"""Git change: revise exactly the entries whose derived text a committed change altered.

For every file source of the operation that a git change source touches (its `paths`; all
file sources when it names none), the entries citing an older source with the same uri are
looked at. The file's adapter is run on that old source (the one the entry cites) and on the
new one. Each derived candidate has a topic key (pyproject:build-backend, make:test, rule:<the
line> ...). An entry whose text equals the old derivation of a topic:

- is revised to the new text of that topic when it differs (evidence: the new file source and
  the git change; the planner adds the previous version's evidence);
- is reported as a FORGET suggestion when the new file no longer derives that topic (absence
  is not invalidation: the caller decides);
- is left alone when the text is unchanged.

Entries whose text matches no old derivation (a user's correction, a model's candidate) are
never touched by a git change.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from ..domain.errors import NotFoundError
from ..domain.models import Source, SourceRef
from . import agent_rules, build_targets, pyproject
from .port import ActiveEntry, Candidate, Extraction, ExtractionInput, Suggestion, SuggestionKind
from .sources import (
    AGENT_RULES,
    BUILD_TARGETS,
    GIT_CHANGE,
    PYPROJECT,
    file_format,
    git_change,
    is_git_change,
    repo_path,
)

# The most older sources one git change reads back to compare (each read is hash-verified).
MAX_OLD_SOURCES: Final = 256

Derive = Callable[[Source, Sequence[Source]], list[Candidate]]
FILE_DERIVERS: Final[dict[str, Derive]] = {
    PYPROJECT: pyproject.derive,
    BUILD_TARGETS: build_targets.derive,
    AGENT_RULES: agent_rules.derive,
}


def derive_file(source: Source, siblings: Sequence[Source]) -> list[Candidate]:
    fmt = file_format(source)
    derive = FILE_DERIVERS.get(fmt[0]) if fmt else None
    return derive(source, siblings) if derive else []


async def extract(request: ExtractionInput) -> Extraction:
    out = Extraction()
    changes = [(s, git_change(s)) for s in request.sources if is_git_change(s)]
    changes_ok = [(s, c) for s, c in changes if c is not None]
    if not changes_ok or not request.entries:
        return out
    operation = {s.source_id for s in request.sources}
    old = await _cited_sources(request, operation)
    for new in request.sources:
        path = repo_path(new)
        if path is None or file_format(new) is None:
            continue
        touching = tuple(s.ref for s, c in changes_ok if not c.paths or path in c.paths)
        if not touching:
            continue
        derived = {c.topic: c for c in derive_file(new, request.sources)}
        for previous in old:
            if previous.uri != new.uri or previous.source_id == new.source_id:
                continue
            before = {c.text: c.topic for c in derive_file(previous, request.sources)}
            for entry in request.entries:
                if previous.ref in entry.sources and entry.text in before:
                    _compare(entry, derived.get(before[entry.text]), new, touching, path, out)
    return out


def _compare(
    entry: ActiveEntry,
    now: Candidate | None,
    new: Source,
    changes: tuple[SourceRef, ...],
    path: str,
    out: Extraction,
) -> None:
    if now is None:
        out.suggestions.append(
            Suggestion(
                SuggestionKind.FORGET,
                (entry.ref,),
                GIT_CHANGE,
                f"{path} no longer says this (absence alone is not invalidation): {entry.text}",
                tuple(sorted({new.ref, *changes})),
            )
        )
        return
    if now.text == entry.text:
        return
    out.candidates.append(
        Candidate(
            entry.ref,
            now.kind,
            now.text,
            tuple(sorted({new.ref, *changes})),
            GIT_CHANGE,
            now.topic,
            f"{path} changed",
        )
    )


async def _cited_sources(request: ExtractionInput, operation: set[str]) -> list[Source]:
    """The older sources the window's entries cite (not the operation's own), read back."""
    wanted: list[str] = []
    for entry in request.entries:
        for ref in entry.sources:
            if ref.source_id not in operation and ref.source_id not in wanted:
                wanted.append(ref.source_id)
    found = []
    for source_id in wanted[:MAX_OLD_SOURCES]:
        try:
            found.append(await request.read_source(source_id))
        except NotFoundError:
            continue  # cited but gone: nothing to compare with
    return found
