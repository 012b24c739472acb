"""AGENTS.md / CLAUDE.md / CONTRIBUTING.md: explicit rules only, quoted as written.

A rule is a list item (with its indented continuation lines), a one-line paragraph or a MyST
admonition ("```{warning}") that is an instruction to whoever works in the repository:

- it holds an imperative marker — kind constraint for must / must not / never / do not /
  don't / shall not / cannot / forbidden, 必须 / 禁止 / 不得 / 不要 / 不准 / 请勿 / 切勿 / 不可;
  preference for should / always / prefer / avoid, 应该 / 应当 / 务必 / 优先 / 尽量;
- or it starts with an imperative verb ("Run …", "Use …", "Add …"; after a label such as
  "Async testing:" or a clause such as "To run a single test,") and names a command or a
  concrete convention (a `code span`, or a tool or code term: pytest, docstrings, tests …) —
  kind preference; "Keep changes minimal" names nothing and is not a rule;
- or it is a label and a command ("Format: `uv run ruff format .`") — kind preference;
- a lead-in ending with ":" followed by a short shell code block is the rule "lead-in:
  `command`; `command`"; any other lead-in loses its last sentence (a fragment is no rule).

Left out: multi-line prose paragraphs, headings, tables, quotes, other code; governance text
(issue and pull-request intake, licensing, code of conduct, releases, community) and anything
under such a heading; the maintainers speaking of themselves ("We welcome …"). Nothing is
paraphrased: the entry text is the rule with its list marker removed. A rule that names a task
(`make test`, `just lint`, `npm run build`, `tox -e docs`, `nox -s tests`, `poe check`) also
cites the operation's file that defines it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from ..domain.models import Source
from . import build_targets, pyproject_tasks
from .commands import CODE_SPAN, commands
from .lead_ins import (
    is_lead_in,
    last_sentence,
    obligation,
    short_script,
    without_last_sentence,
)
from .markdown_blocks import Block, blocks
from .port import Candidate
from .sources import AGENT_RULES, BUILD_TARGETS, PYPROJECT, file_format, text_of
from .tasks import MENTION
from .text import clip

CONSTRAINT_EN: Final = re.compile(
    r"\b(?:must|mustn't|never|do not|don't|shall not|cannot|can't|may not|not allowed|"
    r"forbidden)\b",
    re.IGNORECASE,
)
PREFERENCE_EN: Final = re.compile(
    r"\b(?:should|shouldn't|(?<!not )always|prefer|avoid)\b", re.IGNORECASE
)
CONSTRAINT_ZH: Final = ("必须", "禁止", "不得", "不要", "不准", "请勿", "切勿", "不可")
PREFERENCE_ZH: Final = ("应该", "应当", "务必", "优先", "尽量")
MAX_RULE_CHARS: Final = 1000
# Longer than a few hard-wrapped lines: a paragraph with no code is prose, not a rule.
MAX_RULE_PARAGRAPH_CHARS: Final = 240
MAX_RULES: Final = 64

IMPERATIVE: Final = frozenset(
    {
        "run", "use", "add", "keep", "write", "prefer", "avoid", "do", "don't", "never", "always",
        "ensure", "make", "follow", "install", "update", "document", "wrap", "place", "put",
        "remove", "extract", "include", "check", "create", "set", "call", "catch", "raise",
        "test",
        "format", "lint", "build", "commit", "push", "submit", "branch", "register", "sync",
        "match", "comment", "prefix", "implement", "omit", "eliminate", "simplify", "replace",
        "delete",
        "mark", "pin", "import", "name", "return", "log", "limit", "split", "group", "reuse",
        "store", "read", "execute", "invoke", "regenerate", "generate", "verify", "validate", "fix",
        "bump", "rebase", "squash", "sign", "edit", "modify", "change", "rename", "move", "copy",
        "duplicate", "assign", "export", "activate", "apply", "pass", "skip", "disable", "enable",
        "declare", "define", "annotate", "configure", "leave", "treat", "be", "focus", "consult",
        "refer", "sort", "select", "choose", "specify", "upgrade", "lock", "wait",
    }
)  # fmt: skip
# What makes an imperative concrete when it has no code span: a tool or a code convention.
CONCRETE: Final = re.compile(
    r"\b(?:uv|pip|pytest|ruff|black|mypy|pyright|anyio|asyncio|poetry|hatch|tox|nox|"
    r"pre-commit|docstrings?|type hints?|type checks?|walrus|changelog|pep ?8|f-strings?|"
    r"tests?|comments?|formatters?|linters?|linting)\b",
    re.IGNORECASE,
)
_LABEL: Final = re.compile(r"^\**([A-Za-z][\w /()'-]{0,40}?)\**\s*:\**\s+(.*)$")
_CLAUSE: Final = re.compile(
    r"^(?:to|for|when|if|before|after|once|while)\b[^,]{1,80},\s+(.*)$", re.I
)
GOVERNANCE: Final = re.compile(
    r"code of conduct|\blicen[cs]e[ds]?\b|\bCLA\b|issue tracker|\b(?:open|file|create|submit) an "
    r"issue|corresponding issue|linked issue|an issue first|in an issue|comment on the issue|"
    r"maintainers?'?s? (?:discretion|feedback|input)|will be (?:closed|rejected)|get closed|"
    r"be rejected|banned|release draft|publish (?:a |the )?release|donat|sponsor|discord|twitter|"
    r"stack overflow|spread the word",
    re.IGNORECASE,
)
# A heading about releasing *and* building (a "build and release guide") is not governance.
_WORK_HEADING: Final = re.compile(r"build|test|develop|setup|install|workflow|local", re.I)
# Steps for a person setting up a checkout, never for an agent working in one.
HUMAN_SETUP: Final = re.compile(
    r"\bgit clone\b|\byour fork\b|\bfork the\b|"
    r"\b(?:have|has|is|are|was|were)\s+(?:\S+\s+){0,2}installed\b|"
    r"^install \[[^\]]+\]\([^)]*\)\W*$",  # a tool installed from its website
    re.IGNORECASE,
)
GOVERNANCE_HEADING: Final = re.compile(
    r"code of conduct|licen[cs]e|releas|publish|community|support|getting help|report(?:ing)? "
    r"(?:a )?(?:bug|issue)|troubleshoot|faq|acknowledg|credits|sponsor|donat|governance|"
    r"what gets rejected|before you start|finding issues|become a maintainer",
    re.IGNORECASE,
)
_MAINTAINER_VOICE: Final = re.compile(r"^(?:we|our|i|thank|thanks)\b", re.IGNORECASE)
_RUNNER_FORMAT: Final = {
    "make": (BUILD_TARGETS, "make"), "just": (BUILD_TARGETS, "just"),
    "npm run": (BUILD_TARGETS, "npm"), "tox -e": (BUILD_TARGETS, "tox"),
    "nox -s": (BUILD_TARGETS, "nox"), "poe": (PYPROJECT, "poe"),
    "hatch run": (PYPROJECT, "hatch"), "pdm run": (PYPROJECT, "pdm"),
    "task": (PYPROJECT, "taskipy"),
}  # fmt: skip


def rule_kind(line: str) -> str | None:
    """constraint, preference, or None when the line is no instruction."""
    plain = line.replace("**", "")
    if _refused(plain):
        return None
    if CONSTRAINT_EN.search(plain) or any(m in plain for m in CONSTRAINT_ZH):
        return "constraint"
    if PREFERENCE_EN.search(plain) or any(m in plain for m in PREFERENCE_ZH):
        return "preference"
    if _imperative(plain) or _labelled_command(plain):
        return "preference"
    return None


def _refused(plain: str) -> bool:
    """Governance, a person's setup step, or the maintainers speaking of themselves."""
    if GOVERNANCE.search(plain) and not commands(plain) or HUMAN_SETUP.search(plain):
        return True
    return bool(_MAINTAINER_VOICE.match(plain)) and not commands(plain)


def derive(source: Source, siblings: Sequence[Source] = ()) -> list[Candidate]:
    text = text_of(source)
    if text is None:
        return []
    out: list[Candidate] = []
    seen: set[str] = set()
    for line, kind in rules(text):
        if line in seen or len(out) >= MAX_RULES:
            continue
        seen.add(line)
        refs = {source.ref, *(s.ref for s in _task_files_named(line, siblings))}
        out.append(Candidate(None, kind, line, tuple(sorted(refs)), AGENT_RULES, f"rule:{line}"))
    return out


def rules(text: str) -> Iterator[tuple[str, str]]:
    """(rule as written, kind), in file order."""
    found = [b for b in blocks(text) if not any(_governance_heading(h) for h in b.headings)]
    lead: _Obligation | None = None
    for i, block in enumerate(found):
        if lead is not None and not lead.covers(block):
            lead = None
        if lead is not None and lead.joins(block):
            joined = clip(f"{lead.sentence} {block.text}", MAX_RULE_CHARS)
            if not _refused(joined.replace("**", "")):
                yield joined, _stronger(lead.kind, rule_kind(joined))
            continue
        if block.kind == "code":
            continue
        line = clip(block.text, MAX_RULE_CHARS)
        kind = obligation(line)
        if kind is not None:
            lead = _Obligation(last_sentence(line), kind, block)
        if block.kind == "paragraph" and len(block.lines) > 1:
            continue  # prose, though its last sentence may introduce rules
        if is_lead_in(line):
            following = found[i + 1] if i + 1 < len(found) else None
            script = short_script(following)
            if script:
                joined = f"{line} " + "; ".join(f"`{c}`" for c in script)
                yield joined, rule_kind(joined) or "preference"
                continue
            line = without_last_sentence(line)
        if block.kind == "paragraph" and _prose(line):
            continue
        kind = rule_kind(line) if line else None
        if kind is not None:
            yield line, kind


@dataclass
class _Obligation:
    """A lead-in that obliges ("All changes need to:") and the list items it introduces: the
    items after it, at the level of the first one (deeper items are read on their own)."""

    sentence: str
    kind: str
    block: Block
    level: int | None = None

    def covers(self, block: Block) -> bool:
        if block is self.block:
            return True
        if block.kind != "item" or block.headings != self.block.headings:
            return False
        return self.block.kind != "item" or block.indent > self.block.indent

    def joins(self, block: Block) -> bool:
        if block is self.block:
            return False
        if self.level is None:
            self.level = block.indent
        return block.indent <= self.level


def _stronger(kind: str, other: str | None) -> str:
    return "constraint" if "constraint" in (kind, other) else kind


def _prose(line: str) -> bool:
    """A long paragraph naming no code: an explanation, even on one line (a file that is not
    hard-wrapped writes every paragraph on one line, so its line count tells nothing)."""
    return len(line) > MAX_RULE_PARAGRAPH_CHARS and not CODE_SPAN.search(line)


def rule_lines(text: str) -> Iterator[str]:
    """The rules' texts (see rules())."""
    for line, _ in rules(text):
        yield line


def _governance_heading(heading: str) -> bool:
    return bool(GOVERNANCE_HEADING.search(heading)) and not _WORK_HEADING.search(heading)


def _imperative(line: str) -> bool:
    """Starts (after a label or a purpose clause) with an imperative verb and names something
    concrete after it."""
    core = line
    label = _LABEL.match(core)
    if label:
        core = label.group(2)
    clause = _CLAUSE.match(core)
    if clause:
        core = clause.group(1)
    words = core.split(maxsplit=1)
    if not words:
        return False
    verb = words[0].lower().split("/")[0].strip("*_,.:")
    rest = words[1] if len(words) > 1 else ""
    if verb == "make" and rest.lower().startswith("sure "):
        rest = rest[5:]
    return verb in IMPERATIVE and bool(CODE_SPAN.search(rest) or CONCRETE.search(rest))


def _labelled_command(line: str) -> bool:
    """A short label, then a command in a code span ("Format: `uv run ruff format .`")."""
    label = _LABEL.match(line)
    value = label.group(2) if label else ""
    return value.startswith("`") and bool(commands(value))


def _task_files_named(line: str, siblings: Sequence[Source]) -> list[Source]:
    """The operation's files that define a task this rule names."""
    found: list[Source] = []
    for runner, name in MENTION.findall(line):
        wanted = _RUNNER_FORMAT.get(" ".join(runner.lower().split()))
        name = name.rstrip(".:,;`")
        for other in siblings:
            fmt = file_format(other)
            if wanted and fmt and other not in found and _defines(other, fmt, wanted, name):
                found.append(other)
    return found


def _defines(source: Source, fmt: tuple[str, str], wanted: tuple[str, str], name: str) -> bool:
    if wanted[0] == BUILD_TARGETS:
        return fmt == wanted and build_targets.defines(source, name)
    return fmt[0] == PYPROJECT and pyproject_tasks.defines(source, wanted[1], name)


def is_rules_file(source: Source) -> bool:
    fmt = file_format(source)
    return fmt is not None and fmt[0] == AGENT_RULES
