"""The lines of a shell code block in a rules file, read as a person types them: a line ending
with `\\` continues on the next one, a `$ ` prompt is dropped, and a comment — a whole line
starting with `#` (not `#!`) or `//`, or ` # …` / ` // …` after a command, outside quotes —
is kept apart from its command, because it often names what the command is for:

    # Typecheck
    python -m mypy src/        → Line("python -m mypy src/", "", "Typecheck" above it)
    uv run pytest   # run tests  → Line("uv run pytest", "run tests")

A blank line is kept (command and comment both empty): it ends a group of commands.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .text import one_line

SHELL_INFO: Final = frozenset({"", "bash", "sh", "shell", "console", "zsh", "shell-session"})
_INLINE_COMMENT: Final = re.compile(r"\s+(?:#|//)\s")
_QUOTED: Final = re.compile(r""""(?:\\.|[^"\\])*"|'[^']*'|`[^`]*`""")


@dataclass(frozen=True)
class Line:
    """One logical line: a command with its trailing comment, or a whole-line comment
    (`command` empty, `comment` set), or a blank line (both empty)."""

    command: str
    comment: str = ""

    @property
    def blank(self) -> bool:
        return not self.command and not self.comment


def read(lines: Sequence[str]) -> list[Line]:
    """The block's logical lines, continuations joined."""
    out: list[Line] = []
    pending = ""
    for raw in lines:
        text = raw.strip()
        if pending:
            text = f"{pending} {text}"
            pending = ""
        if text.endswith("\\") and not text.startswith(("#", "//")):
            pending = text[:-1].strip()
            continue
        out.append(_line(text))
    if pending:
        out.append(_line(pending))
    return out


def _line(text: str) -> Line:
    text = text.removeprefix("$ ").strip()
    if not text:
        return Line("")
    if (text.startswith("#") and not text.startswith("#!")) or text.startswith("//"):
        return Line("", one_line(text.lstrip("#/ ")))
    masked = _QUOTED.sub(lambda m: "\0" * len(m.group(0)), text)
    comment = _INLINE_COMMENT.search(masked)
    if comment is None:
        return Line(one_line(text))
    return Line(one_line(text[: comment.start()]), one_line(text[comment.end() :]))
