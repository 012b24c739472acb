"""How a recipe line reads as shell: its statements, split at `&&`, `||`, `;` and `|` outside
quotes. A separator inside a quoted string is text: `echo "\\033[0;32m Running tests"` is one
statement that prints, not two.
"""

from __future__ import annotations

import re
from typing import Final

_SEPARATOR: Final = re.compile(r"&&|\|\||;|\|")
_QUOTED: Final = re.compile(r""""(?:\\.|[^"\\])*"|'[^']*'""")


def statements(line: str) -> list[str]:
    """The line's statements, stripped, in order (a quoted `;` or `|` splits nothing)."""
    masked = _QUOTED.sub(lambda m: "\0" * len(m.group(0)), line)
    out, start = [], 0
    for separator in _SEPARATOR.finditer(masked):
        out.append(line[start : separator.start()].strip())
        start = separator.end()
    out.append(line[start:].strip())
    return out
