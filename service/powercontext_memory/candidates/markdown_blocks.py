"""A small Markdown block reader for the rules files: list items (with their indented
continuation lines), paragraphs, fenced code, MyST admonitions (```{warning} ...), tables (their
rows as written), headings.

Not a CommonMark parser: it reads what AGENTS.md / CLAUDE.md / CONTRIBUTING.md files are made
of, line by line, bounded by the text it is given. Block quotes and HTML comments are skipped;
each block knows the headings it sits under.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from .text import one_line

LIST_MARKER: Final = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?")
_HEADING: Final = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ADMONITIONS: Final = frozenset(
    {"warning", "important", "caution", "danger", "attention", "note", "tip", "admonition"}
)


@dataclass(frozen=True)
class Block:
    """kind: "item" | "paragraph" (lines kept apart) | "code" | "admonition" | "table"."""

    kind: str
    lines: tuple[str, ...]
    headings: tuple[str, ...]
    info: str = ""  # a code block's info string ("bash")
    indent: int = 0  # a list item's marker column: a deeper item is nested in a shallower one

    @property
    def text(self) -> str:
        return one_line(" ".join(self.lines))


def blocks(text: str) -> Iterator[Block]:
    headings: list[tuple[int, str]] = []
    pending: list[str] = []
    kind = ""
    indent = 0  # of the list item being read
    fence = ""  # the fence that opened the code block being read
    info = ""
    in_comment = False

    def path() -> tuple[str, ...]:
        return tuple(h for _, h in headings)

    def flush() -> Iterator[Block]:
        nonlocal kind
        if kind and pending:
            yield Block(kind, tuple(pending), path(), indent=indent if kind == "item" else 0)
        pending.clear()
        kind = ""

    for raw in text.split("\n"):
        stripped = raw.strip()
        if fence:
            if stripped.startswith(fence) and not stripped[len(fence) :].strip():
                name = info.strip("{} ").split()[0].lower() if info.strip("{} ") else ""
                if info.startswith("{") and name in _ADMONITIONS:
                    yield Block("admonition", tuple(pending), path())
                else:
                    yield Block("code", tuple(pending), path(), info)
                pending.clear()
                fence = ""
            else:
                pending.append(stripped)
            continue
        if in_comment:
            in_comment = "-->" not in stripped
            continue
        if stripped.startswith(("```", "~~~")):
            yield from flush()
            fence = stripped[:3] + "".join(c for c in stripped[3:] if c == stripped[0])
            info = stripped[len(fence) :].strip()
            continue
        heading = _HEADING.match(raw)
        marker = LIST_MARKER.match(raw)
        if stripped.startswith("<!--"):
            yield from flush()
            in_comment = "-->" not in stripped
        elif heading:
            yield from flush()
            level = len(heading.group(1))
            headings = [h for h in headings if h[0] < level] + [(level, heading.group(2))]
        elif marker:
            yield from flush()
            kind = "item"
            indent = len(raw.expandtabs(4)) - len(raw.expandtabs(4).lstrip())
            pending.append(raw[marker.end() :].strip())
        elif stripped.startswith("|"):
            if kind != "table":
                yield from flush()
                kind = "table"
            pending.append(stripped)
        elif not stripped or stripped.startswith((">", "---", "***")):
            yield from flush()
        elif kind == "item" and raw[:1] in (" ", "\t"):
            pending.append(stripped)
        else:
            if kind in ("item", "table"):
                yield from flush()
            kind = "paragraph"
            pending.append(stripped)
    if fence:
        pending.clear()  # an unclosed fence: code to the end, never rules
    yield from flush()
