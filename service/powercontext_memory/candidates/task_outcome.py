"""Task outcome (an agent turn stopped): the session's one working note, or nothing.

Without a semantic extractor nothing is inferred from a report (docs/bootstrap.md): the
note only puts together what the host gave, in a fixed form, with no host-internal keys:

    <report excerpt>; changed: <paths>; verified: <command> → <result>; ...

Parts without data are left out. No report, no changed paths and no verification → no
candidate (a no-op), so a turn that did nothing useful never creates an entry.

One note per session: a task outcome that names its session's note (`note_entry_id`, which
the runtime keeps from the turn that created it) revises that note when it is still an active
working note of the head, so the next turn updates the note rather than adding one (its
history keeps every turn). A new note whose text nearly repeats an active note (the same
words, NEAR_DUPLICATE of them at least) is not added.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from ..domain.models import Source
from .port import ActiveEntry, Candidate
from .sources import TASK_OUTCOME, TASK_OUTCOME_KIND, json_object
from .text import clip, join_bounded, one_line

KIND: Final = "working_note"
MAX_REPORT_CHARS: Final = 600
MAX_PATHS: Final = 10
MAX_CHECKS: Final = 5
MAX_CHECK_CHARS: Final = 160
# Two notes sharing this share of their distinct words (Jaccard) say the same thing.
NEAR_DUPLICATE: Final = 0.9
_WORD: Final = re.compile(r"\w+")


def derive(source: Source, entries: Sequence[ActiveEntry] = ()) -> list[Candidate]:
    if source.kind != TASK_OUTCOME_KIND:
        return []
    data = json_object(source)
    if data is None:
        return []
    text = note_text(data)
    if not text:
        return []
    topic = "session:" + one_line(_string(data.get("session_id")))
    continued = _session_note(_string(data.get("note_entry_id")), entries)
    if continued is not None:
        return [Candidate(continued.ref, KIND, text, (source.ref,), TASK_OUTCOME, topic)]
    if any(e.kind == KIND and near_duplicate(e.text, text) for e in entries):
        return []
    return [Candidate(None, KIND, text, (source.ref,), TASK_OUTCOME, topic)]


def note_text(data: dict[str, Any]) -> str:
    """The note's text ("" when the outcome holds nothing worth a note)."""
    report = clip(one_line(_string(data.get("report"))), MAX_REPORT_CHARS)
    paths = [one_line(p) for p in _list(data.get("changed_paths")) if isinstance(p, str)]
    paths = [p for p in paths if p]
    checks = []
    for check in _list(data.get("verification")):
        if not isinstance(check, dict):
            continue
        command = one_line(_string(check.get("command")))
        result = one_line(_string(check.get("result")))
        if command:
            text = f"{command} → {result}" if result else command
            checks.append(clip(text, MAX_CHECK_CHARS))
    parts = [report] if report else []
    if paths:
        parts.append("changed: " + join_bounded(paths, MAX_PATHS))
    if checks:
        parts.append("verified: " + join_bounded(checks, MAX_CHECKS, "; "))
    return "; ".join(parts)


def _session_note(entry_id: str, entries: Sequence[ActiveEntry]) -> ActiveEntry | None:
    if not entry_id:
        return None
    for entry in entries:
        if entry.ref.entry_id == entry_id:
            return entry if entry.kind == KIND else None
    return None


def near_duplicate(a: str, b: str) -> bool:
    words_a, words_b = set(_WORD.findall(a.lower())), set(_WORD.findall(b.lower()))
    if not words_a or not words_b:
        return a.strip() == b.strip()
    return len(words_a & words_b) / len(words_a | words_b) >= NEAR_DUPLICATE


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
