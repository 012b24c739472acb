"""Lead-ins of a rules file: a sentence ending with ":" and the block it introduces.

- followed by a short shell code block (also after a sentence ending with "." that announces
  it: "This will run the backend's unit tests."), or by list items that are each a bare command
  in a code span (1. `tox -e venv` 2. `. venv/bin/activate`), the lead-in and its commands are one
  rule ("Ensure tests pass: `uv run pytest`"); so is a hard-wrapped paragraph whose lines after
  the one ending with ":" hold only such commands ("… is as easy as:\n`py.test tests -k x`");
- stating an obligation ("All changes need to:", "Every PR must:"), each list item after it
  completes the sentence and is one rule with it ("All changes need to: have tests …");
- otherwise the sentence ending with ":" is a fragment and no rule on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from .commands import CODE_SPAN, looks_like_command
from .for_a_person import for_a_person
from .markdown_blocks import Block
from .script_lines import SHELL_INFO, read
from .text import one_line

MAX_LEAD_IN_COMMANDS: Final = 3
# A lead-in longer than this is quoted from its last sentence, the one ending with ":".
MAX_LEAD_IN_CHARS: Final = 240
_BARE_SPAN: Final = re.compile(r"^`([^`]+)`[.;,]?$")
_SPANS_ONLY: Final = re.compile(r"^(?:`[^`]+`[.;,]?\s*)+$")
# A lead-in sentence that obliges the reader; its list items say to what.
OBLIGATION_CONSTRAINT: Final = re.compile(
    r"\b(?:must|shall|needs? to|ha(?:ve|s) to|(?:is|are) required to)\b", re.IGNORECASE
)
OBLIGATION_PREFERENCE: Final = re.compile(r"\bshould\b", re.IGNORECASE)
_OBLIGATIONS: Final = (
    ("constraint", OBLIGATION_CONSTRAINT, ("必须", "需要")),
    ("preference", OBLIGATION_PREFERENCE, ("应该", "应当", "务必")),
)
# Words allowed between the obligation and the colon ("must not be:"), not counting words
# that point at the list itself ("must satisfy the following:").
MAX_WORDS_AFTER: Final = 2
_POINTER: Final = re.compile(r"\s*\b(?:(?:all )?(?:of )?(?:the following|these))?\s*[:：]\s*$")
# A sentence ending with "." that announces the commands after it ("This will run the backend's
# unit tests.", "The following command will install …").
_ANNOUNCES: Final = re.compile(
    r"^(?:this|these|the following|the commands? below)\b[^.:]*\b(?:will|commands?)\b[^:]*\.$",
    re.IGNORECASE,
)


def is_lead_in(line: str) -> bool:
    return line.endswith((":", "："))


def announces(line: str) -> bool:
    """A one-sentence paragraph ending with "." that announces the commands after it."""
    return bool(_ANNOUNCES.match(line))


def short_script(block: Block | None) -> list[str]:
    """The commands of a shell code block of at most MAX_LEAD_IN_COMMANDS lines (comments left
    out, script_lines.py), else []; [] too when the block opens an interactive UI for a person
    (`pnpm test:interactive // runs cypress open`)."""
    if block is None or block.kind != "code" or block.info.lower() not in SHELL_INFO:
        return []
    lines = read(block.lines)
    commands = [line.command for line in lines if line.command]
    if len(commands) > MAX_LEAD_IN_COMMANDS or not all(map(looks_like_command, commands)):
        return []  # a long script, or output (a file listing) rather than commands
    if any(for_a_person(f"{line.command} {line.comment}") for line in lines):
        return []
    return commands


def commands_after(found: Sequence[Block], i: int) -> tuple[list[str], int]:
    """The commands the lead-in found[i] introduces and how many blocks after it hold them: a
    short shell code block, or up to MAX_LEAD_IN_COMMANDS list items that are each a bare
    command in a code span; ([], 0) when it introduces anything else."""
    script = short_script(found[i + 1] if i + 1 < len(found) else None)
    if script:
        return script, 1
    items: list[str] = []
    for block in found[i + 1 :]:
        bare = _BARE_SPAN.match(block.text) if block.kind == "item" else None
        if bare is None:
            break
        items.append(one_line(bare.group(1)))
    if not items or len(items) > MAX_LEAD_IN_COMMANDS:
        return [], 0
    return (items, len(items)) if all(map(looks_like_command, items)) else ([], 0)


def inline_commands(block: Block) -> tuple[str, list[str]] | None:
    """(lead-in, commands) of a hard-wrapped paragraph whose lines after the last one ending
    with ":" are only commands in code spans, else None."""
    lines = block.lines
    ends = [k for k in range(len(lines) - 1) if is_lead_in(lines[k])]
    if block.kind != "paragraph" or not ends:
        return None
    rest = lines[ends[-1] + 1 :]
    if not all(_SPANS_ONLY.match(line) for line in rest):
        return None
    spans = [one_line(c) for line in rest for c in CODE_SPAN.findall(line)]
    if len(spans) > MAX_LEAD_IN_COMMANDS or not all(map(looks_like_command, spans)):
        return None
    return one_line(" ".join(lines[: ends[-1] + 1])), spans


def quoted(lead: str, commands: Sequence[str]) -> str:
    """The rule: the lead-in (its last sentence when long) and its commands in code spans."""
    text = lead if len(lead) <= MAX_LEAD_IN_CHARS else last_sentence(lead)
    return f"{text} " + "; ".join(f"`{c}`" for c in commands)


def obligation(line: str) -> str | None:
    """The kind of rule a lead-in makes of the list items after it, or None. The items complete
    the sentence only when its colon ends the obligation's verb phrase ("All changes need
    to:", "Your code must be:"); "you should verify, looking up things like:" lists examples."""
    if not is_lead_in(line):
        return None
    sentence = last_sentence(line)
    for kind, pattern, words in _OBLIGATIONS:
        ends = [m.end() for m in pattern.finditer(sentence)]
        ends += [sentence.rfind(w) + len(w) for w in words if w in sentence]
        tail = _POINTER.sub("", sentence[max(ends) :] if ends else "")
        if ends and len(tail.split()) <= MAX_WORDS_AFTER:
            return kind
    return None


def last_sentence(line: str) -> str:
    """The lead-in's sentence that ends with ":" ("All changes need to:")."""
    return line[_last_cut(line) + 1 :].strip()


def without_last_sentence(line: str) -> str:
    """A lead-in's sentences before the one that ends with ":" ("" when it is the only one)."""
    cut = _last_cut(line)
    return line[: cut + 1].strip() if cut > 0 else ""


def _last_cut(line: str) -> int:
    return max(line.rfind(". "), line.rfind("。"))
