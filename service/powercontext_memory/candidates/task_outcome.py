"""Task outcome (an agent turn stopped): one mechanical working_note, or nothing.

Without a semantic extractor nothing is inferred from a report (RFC 候选生成与无模型降级): the
note only puts together what the host gave, in a fixed form:

    Turn <turn_id> ended at <git head, 12 chars>: <report excerpt>; changed: <paths>;
    verified: <command> → <result>; ...

Parts without data are left out. No report, no changed paths and no verification → no
candidate (a no-op), so a turn that did nothing useful never creates an entry.
"""

from __future__ import annotations

from typing import Any, Final

from ..domain.models import Source
from .port import Candidate
from .sources import TASK_OUTCOME, TASK_OUTCOME_KIND, json_object
from .text import clip, join_bounded, one_line

KIND: Final = "working_note"
MAX_REPORT_CHARS: Final = 600
MAX_PATHS: Final = 10
MAX_CHECKS: Final = 5
MAX_CHECK_CHARS: Final = 160


def derive(source: Source) -> list[Candidate]:
    if source.kind != TASK_OUTCOME_KIND:
        return []
    data = json_object(source)
    if data is None:
        return []
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
    if not (report or paths or checks):
        return []
    turn = one_line(_string(data.get("turn_id")))
    head = one_line(_string(data.get("git_head")))[:12]
    opening = "Turn" + (f" {turn}" if turn else "") + " ended" + (f" at {head}" if head else "")
    parts = [f"{opening}: {report}" if report else opening]
    if paths:
        parts.append("changed: " + join_bounded(paths, MAX_PATHS))
    if checks:
        parts.append("verified: " + join_bounded(checks, MAX_CHECKS, "; "))
    text = "; ".join(parts)
    return [Candidate(None, KIND, text, (source.ref,), TASK_OUTCOME, f"turn:{turn or head}")]


def _string(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
