""".pre-commit-config.yaml: one fact naming the hooks `pre-commit run --all-files` runs, and
for a local hook the command it runs ("ruff-format (`uv run ruff format`)").

No YAML parser is a dependency of the server, so this is a careful minimal line reader, not a
YAML implementation: it reads the block style pre-commit configs are written in — `- id: x`
items (any indentation, `-   id:` too), `repo: local`, and a hook's `entry:` with its `args:`
as an inline list (`[a, "b"]`) or a block list of `- item` lines. Flow-style documents
(`hooks: [{id: x}]`), anchors and multi-line scalars are not read; a file it cannot read
yields hooks it could read, or nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from .text import join_bounded

_KEY: Final = re.compile(r"^(\s*)(-\s+)?([A-Za-z_]+):\s*(.*?)\s*$")
_ITEM: Final = re.compile(r"^(\s*)-\s+(.*?)\s*$")
MAX_HOOKS: Final = 16


# Repositories of file-hygiene hooks (trailing whitespace, YAML syntax ...): listed last.
HYGIENE: Final = ("pre-commit/pre-commit-hooks", "pre-commit/pygrep-hooks")


@dataclass
class Hook:
    id: str
    local: bool
    hygiene: bool = False
    entry: str = ""
    args: list[str] = field(default_factory=list)

    def label(self) -> str:
        if self.local and self.entry:
            return f"{self.id} (`{' '.join([self.entry, *self.args])}`)"
        return self.id


def hooks(text: str) -> list[Hook]:
    out: list[Hook] = []
    local = hygiene = False
    in_args: int | None = None  # indentation of a block-list `args:` being read
    for raw in text.split("\n"):
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        if in_args is not None:
            item = _ITEM.match(line)
            if item and indent >= in_args and out and not _KEY.match(line):
                out[-1].args.append(_scalar(item.group(2)))
                continue
            in_args = None
        match = _KEY.match(line)
        if match is None:
            continue
        _, _, key, value = match.groups()
        if key == "repo":
            local = _scalar(value) == "local"
            hygiene = any(repo in value for repo in HYGIENE)
        elif key == "id" and value:
            out.append(Hook(_scalar(value), local, hygiene))
        elif key == "entry" and out:
            out[-1].entry = _scalar(value)
        elif key == "args" and out:
            if value.startswith("["):
                out[-1].args = [_scalar(v) for v in value.strip("[]").split(",") if v.strip()]
            elif not value:
                in_args = indent
    return out


def fact(text: str) -> str | None:
    """The entry text ("`pre-commit run --all-files` runs the hooks ruff, ruff-format, …"),
    file-hygiene hooks last, or None when no hook could be read."""
    found = hooks(text)
    if not found:
        return None
    ordered = sorted(found, key=lambda h: h.hygiene)  # stable: file order within each group
    labels = join_bounded([h.label() for h in ordered], MAX_HOOKS)
    return f"`pre-commit run --all-files` runs the hooks {labels} (.pre-commit-config.yaml)."


def _scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
