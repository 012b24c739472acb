"""What looks like a shell command in a rules file: a code span such as `uv run pytest`,
`./scripts/test` or a lone tool name (`pytest`), never a piece of Python (`except (OSError,
...)`) or a bare word (`src`).
"""

from __future__ import annotations

import keyword
import re
from typing import Final

CODE_SPAN: Final = re.compile(r"`([^`]+)`")
_PROGRAM: Final = re.compile(r"[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)?")  # `py.test`, `run.sh`
_ASSIGNMENT: Final = frozenset({"=", "==", "+=", "-=", ":="})
# Programs that are a command on their own, without arguments.
TOOLS: Final = frozenset(
    {"pytest", "tox", "nox", "poe", "make", "just", "mypy", "pyright", "ruff", "black",
     "pre-commit", "hatch", "uv", "pip", "npm"}
)  # fmt: skip


def commands(line: str) -> list[str]:
    """The code spans of `line` that look like shell commands."""
    return [span for span in CODE_SPAN.findall(line) if looks_like_command(span)]


def looks_like_command(span: str) -> bool:
    words = span.split()
    if not words:
        return False
    if words[0].startswith("./") or (words[0] == "." and len(words) == 2):
        return True  # a script of the repository, or sourcing one (`. venv/bin/activate`)
    program = words[0]
    if program in keyword.kwlist or not _PROGRAM.fullmatch(program):
        return False  # `except (OSError, ...)`: Python, not a shell command
    if len(words) > 1 and words[1] in _ASSIGNMENT:
        return False  # `x.y = 1`: Python, not a shell command
    return len(words) > 1 or program in TOOLS
