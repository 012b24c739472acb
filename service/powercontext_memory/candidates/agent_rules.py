"""AGENTS.md / CLAUDE.md / CONTRIBUTING.md: explicit rules only, quoted as written.

A rule is a list item (with its indented continuation lines), a paragraph of one line or of at
most MAX_RULE_PARAGRAPH_CHARS hard-wrapped, or a MyST admonition ("```{warning}") that is an
instruction to whoever works in the repository:

- it holds a modal marker (modality.py) — kind constraint for must / never / do not / shall not
  / forbidden …, preference for should / always / prefer / avoid …, and the Chinese
  equivalents; a marker in a relative clause, or a "should" expecting an outcome, asks nothing;
- or it is an imperative that names a command or a concrete convention (imperatives.py) —
  kind preference; "Keep changes minimal" names nothing and is not a rule;
- a row of a table of commands (command_tables.py) or a group of commands a comment names in a
  shell block (commented_blocks.py) is a rule in the file's words, kind preference;
- a lead-in ending with ":" (or a sentence announcing the commands after it: "This will run the
  unit tests.") followed by a short shell code block, or by list items that are bare commands,
  is the rule "lead-in: `command`; `command`" (lead_ins.py), also when the lead-in is
  hard-wrapped; any other lead-in loses its last sentence (a fragment is no rule). Commands that
  set up a person's checkout or machine (`git clone`, `sudo apt install`) make no rule.

Left out: prose (longer paragraphs, unless a modal in them is emphasised: **MUST**), headings,
other tables, quotes, other code; governance text, a person's setup, the maintainers speaking of
themselves, reassurance and advice to bypass checks (refusals.py). Nothing is paraphrased: the
entry text is the rule with its list marker removed. A rule that names a task (`make test`,
`just lint`, `npm run build`, `tox -e docs`, `nox -s tests`, `poe check`) also cites the
operation's file that defines it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from ..domain.models import Source
from . import build_targets, command_tables, commented_blocks, pyproject_tasks
from .commands import CODE_SPAN
from .imperatives import imperative, labelled_command
from .lead_ins import (
    announces,
    commands_after,
    inline_commands,
    is_lead_in,
    last_sentence,
    obligation,
    quoted,
    without_last_sentence,
)
from .markdown_blocks import Block, blocks
from .modality import emphasised, marker_kind
from .port import Candidate
from .refusals import SETUP_COMMAND, governance_heading, refused
from .sources import AGENT_RULES, BUILD_TARGETS, PYPROJECT, file_format, text_of
from .tasks import MENTION
from .text import clip

MAX_RULE_CHARS: Final = 1000
# Longer than a few hard-wrapped lines: a paragraph with no code is prose, not a rule.
MAX_RULE_PARAGRAPH_CHARS: Final = 240
MAX_RULES: Final = 64

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
    if refused(plain):
        return None
    kind = marker_kind(plain)
    if kind is not None:
        return kind
    if imperative(plain) or labelled_command(plain):
        return "preference"
    return None


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
    found = [b for b in blocks(text) if not any(governance_heading(h) for h in b.headings)]
    lead: _Obligation | None = None
    consumed = 0  # blocks after a lead-in that held its commands
    for i, block in enumerate(found):
        if consumed:
            consumed -= 1
            continue
        if lead is not None and not lead.covers(block):
            lead = None
        if lead is not None and lead.joins(block):
            joined = clip(f"{lead.sentence} {block.text}", MAX_RULE_CHARS)
            if not refused(joined.replace("**", "")):
                yield joined, _stronger(lead.kind, rule_kind(joined))
            continue
        if block.kind == "table":
            yield from ((row, "preference") for row in command_tables.rows(block))
            continue
        if block.kind == "code":
            yield from _named_commands(block)
            continue
        line = clip(block.text, MAX_RULE_CHARS)
        kind = obligation(line)
        if kind is not None:
            lead = _Obligation(last_sentence(line), kind, block)
        introduces = is_lead_in(line) or (block.kind == "paragraph" and announces(line))
        script, consumed = commands_after(found, i) if introduces else ([], 0)
        introduced = (line, script) if script else inline_commands(block)
        if introduced is not None:
            lead_in, shown = introduced
            if not any(SETUP_COMMAND.search(c) for c in shown):  # not a person's setup
                joined = clip(quoted(lead_in, shown), MAX_RULE_CHARS)
                yield joined, rule_kind(joined) or "preference"
            continue
        if is_lead_in(line):
            line = without_last_sentence(line)
        if block.kind == "paragraph" and _prose(line, len(block.lines)):
            continue  # prose, though its last sentence may introduce rules
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


def _named_commands(block: Block) -> Iterator[tuple[str, str]]:
    """The groups of a code block of commands named by their comments (commented_blocks.py)."""
    for line in commented_blocks.rules(block):
        line = clip(line, MAX_RULE_CHARS)
        if not refused(line.replace("**", "")):
            yield line, rule_kind(line) or "preference"


def _stronger(kind: str, other: str | None) -> str:
    return "constraint" if "constraint" in (kind, other) else kind


def _prose(line: str, lines: int) -> bool:
    """An explanation, not a rule: a paragraph longer than a few hard-wrapped lines (a short
    hard-wrapped one reads like a one-line rule), or a long one-line paragraph naming no code (a
    file that is not hard-wrapped writes every paragraph on one line) — unless its author
    emphasised a modal in it ("All changes **MUST** be backward-compatible. …")."""
    if len(line) <= MAX_RULE_PARAGRAPH_CHARS or emphasised(line):
        return False
    return lines > 1 or not CODE_SPAN.search(line)


def rule_lines(text: str) -> Iterator[str]:
    """The rules' texts (see rules())."""
    for line, _ in rules(text):
        yield line


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
