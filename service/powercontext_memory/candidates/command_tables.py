"""Markdown tables of commands in a rules file: a table whose header names a command column
("Command", "Commands", "Run", "Script") and whose cells in that column are each one command in
a code span. Every such row is one rule (kind preference, like a labelled command), told in the
file's own words: the heading the table sits under, the row's label and its other cells with
their column names —
"Tests — Backend (all): `uv run pytest --cov=chainlit/` (Directory: `backend/`)."

Nothing is inferred: a row's role is what its heading and label say. A row whose command sets up
a person's machine or checkout, or opens an interactive UI, makes no rule. Tables of paths,
labels or links (a "Look here" column of `task/base.py`) have no command column and make none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Final

from .commands import looks_like_command
from .for_a_person import for_a_person
from .markdown_blocks import Block
from .refusals import SETUP_COMMAND
from .text import clip, one_line

MAX_ROW_CHARS: Final = 400
_COMMAND_HEADER: Final = re.compile(r"^(?:commands?|run|scripts?|cli|how to run)$", re.I)
_ONE_SPAN: Final = re.compile(r"^`([^`]+)`$")
_SEPARATOR_CELL: Final = re.compile(r"^:?-{3,}:?$")


def rows(block: Block) -> Iterator[str]:
    """The rules of a table block of commands, in row order (nothing for other tables)."""
    table = [_cells(line) for line in block.lines]
    if len(table) < 3 or not all(_SEPARATOR_CELL.match(c) for c in table[1] if c):
        return  # no header row and separator: not a table
    header, body = table[0], table[2:]
    column = next((i for i, name in enumerate(header) if _COMMAND_HEADER.match(name)), None)
    if column is None:
        return
    heading = block.headings[-1] if block.headings else ""
    for cells in body:
        line = _row(heading, header, cells, column)
        if line is not None:
            yield line


def _row(heading: str, header: Sequence[str], cells: Sequence[str], column: int) -> str | None:
    span = _ONE_SPAN.match(cells[column]) if column < len(cells) else None
    command = one_line(span.group(1)) if span else ""
    if not command or not looks_like_command(command):
        return None
    if SETUP_COMMAND.search(command) or for_a_person(command):
        return None
    label_at = next((i for i in range(column) if cells[i]), None)
    label = cells[label_at] if label_at is not None else ""
    extras = "; ".join(
        f"{header[i]}: {value}" if i < len(header) and header[i] else value
        for i, value in enumerate(cells)
        if value and i not in (column, label_at)
    )
    context = " — ".join(part for part in (heading, label) if part)
    text = (f"{context}: " if context else "") + f"`{command}`"
    return clip(text + (f" ({extras})" if extras else "") + ".", MAX_ROW_CHARS)


def _cells(line: str) -> list[str]:
    """The cells of a table row (`| a | b |`), stripped; escaped pipes stay in their cell."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [one_line(c.replace("\\|", "|")) for c in re.split(r"(?<!\\)\|", inner)]
