"""The sections a Makefile or justfile is divided into by banner comments, so that a task is
known by the section it sits in (a "Publishing to PyPI" section holds release tasks).

A banner is a comment at the start of a line that is
- framed by separator comments (`#####` or `# -----`) directly above or below it,
- decorated on both sides (`# ---- Release ----`, `# === Docs ===`), or
- make's help-section convention (`##@ Release`).
A section runs to the next banner. A task's own comment directly above it is no banner.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

_SEPARATOR: Final = re.compile(r"^#+\s*[-=#*~_]{3,}\s*$")
_DECORATED: Final = re.compile(r"^#+\s*[-=*~#]{2,}\s*(\w.*?)\s*[-=*~#]{2,}\s*$")
_HELP_SECTION: Final = re.compile(r"^##@\s*(\S.*?)\s*$")
_COMMENT: Final = re.compile(r"^#+\s*(\w.*?)\s*$")


def titles(lines: Sequence[str]) -> list[str]:
    """For each line, the title of the section it is in ("" before the first banner)."""
    out: list[str] = []
    current = ""
    for i in range(len(lines)):
        title = banner(lines, i)
        if title is not None:
            current = title
        out.append(current)
    return out


def banner(lines: Sequence[str], i: int) -> str | None:
    """The title when line `i` is a banner, else None."""
    line = lines[i].rstrip()
    for pattern in (_HELP_SECTION, _DECORATED):
        match = pattern.match(line)
        if match:
            return match.group(1)
    match = _COMMENT.match(line)
    if match is None or _SEPARATOR.match(line):
        return None
    framed = [j for j in (i - 1, i + 1) if 0 <= j < len(lines) and _SEPARATOR.match(lines[j])]
    return match.group(1) if framed else None
