"""AGENTS.md / CLAUDE.md / CONTRIBUTING.md: explicit rules only, quoted as written.

A rule is a list item (with its indented continuation lines) or a one-line paragraph that
holds an imperative marker. Multi-line paragraphs are prose and are ignored, as are headings,
tables, HTML comments and fenced code. Nothing is paraphrased or inferred: the entry text is
the line with its list marker removed.

Kind: constraint when the line says must / must not / never / do not / don't / shall not /
cannot, 必须 / 禁止 / 不得 / 不要 / 不准 / 请勿 / 切勿 / 不可; preference when it only says
should / always / prefer / avoid, 应该 / 应当 / 务必 / 优先 / 尽量. A rule that names a
build target (`make test`, `just lint`, `npm run build`, `tox -e docs`, `nox -s tests`) also
cites the operation's build file that defines that target.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final

from ..domain.models import Source
from . import build_targets
from .port import Candidate
from .sources import AGENT_RULES, BUILD_TARGETS, file_format, text_of
from .text import clip, one_line

CONSTRAINT_EN: Final = re.compile(
    r"\b(?:must|mustn't|never|do not|don't|shall not|cannot|can't|may not|not allowed)\b",
    re.IGNORECASE,
)
PREFERENCE_EN: Final = re.compile(r"\b(?:should|shouldn't|always|prefer|avoid)\b", re.IGNORECASE)
CONSTRAINT_ZH: Final = ("必须", "禁止", "不得", "不要", "不准", "请勿", "切勿", "不可")
PREFERENCE_ZH: Final = ("应该", "应当", "务必", "优先", "尽量")
MAX_RULE_CHARS: Final = 1000
MAX_RULES: Final = 64

_LIST_MARKER: Final = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_TARGET_MENTION: Final = re.compile(
    r"\b(make|just|npm run|tox -e|nox -s)\s+([A-Za-z0-9_.:\-]+)", re.IGNORECASE
)
_RUNNER_FORMAT: Final = {
    "make": "make", "just": "just", "npm run": "npm", "tox -e": "tox", "nox -s": "nox"
}  # fmt: skip


def rule_kind(line: str) -> str | None:
    """constraint, preference, or None when the line holds no imperative marker."""
    if CONSTRAINT_EN.search(line) or any(m in line for m in CONSTRAINT_ZH):
        return "constraint"
    if PREFERENCE_EN.search(line) or any(m in line for m in PREFERENCE_ZH):
        return "preference"
    return None


def derive(source: Source, siblings: Sequence[Source] = ()) -> list[Candidate]:
    text = text_of(source)
    if text is None:
        return []
    out: list[Candidate] = []
    seen: set[str] = set()
    for line in rule_lines(text):
        kind = rule_kind(line)
        if kind is None or line in seen or len(out) >= MAX_RULES:
            continue
        seen.add(line)
        refs = {source.ref, *(s.ref for s in _build_files_named(line, siblings))}
        out.append(Candidate(None, kind, line, tuple(sorted(refs)), AGENT_RULES, f"rule:{line}"))
    return out


def rule_lines(text: str) -> Iterator[str]:
    """List items and one-line paragraphs, outside code fences, markers stripped."""
    block: list[str] = []
    item: list[str] | None = None
    fenced = False

    def flush_block() -> Iterator[str]:
        if len(block) == 1:
            yield clip(one_line(block[0]), MAX_RULE_CHARS)
        block.clear()

    for raw in text.split("\n"):
        stripped = raw.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            yield from _flush(item)
            item = None
            yield from flush_block()
            continue
        if fenced:
            continue
        marker = _LIST_MARKER.match(raw)
        if marker:
            yield from _flush(item)
            yield from flush_block()
            item = [raw[marker.end() :]]
        elif not stripped:
            yield from _flush(item)
            item = None
            yield from flush_block()
        elif item is not None and raw[:1] in (" ", "\t"):
            item.append(stripped)
        elif stripped.startswith(("#", "|", "<!--", ">")) or stripped.startswith("---"):
            yield from _flush(item)
            item = None
            yield from flush_block()
        else:
            yield from _flush(item)
            item = None
            block.append(stripped)
    yield from _flush(item)
    yield from flush_block()


def _flush(item: list[str] | None) -> Iterator[str]:
    if item:
        line = clip(one_line(" ".join(item)), MAX_RULE_CHARS)
        if line:
            yield line


def _build_files_named(line: str, siblings: Sequence[Source]) -> list[Source]:
    """The operation's build files that define a target this rule names."""
    found: list[Source] = []
    for runner, name in _TARGET_MENTION.findall(line):
        wanted = _RUNNER_FORMAT[" ".join(runner.lower().split())]
        for other in siblings:
            fmt = file_format(other)
            if fmt == (BUILD_TARGETS, wanted) and build_targets.defines(other, name.rstrip(".")):
                found.append(other)
    return found


def is_rules_file(source: Source) -> bool:
    fmt = file_format(source)
    return fmt is not None and fmt[0] == AGENT_RULES
