"""justfile recipes as Tasks: dependencies, body lines (leading `@`/`-` dropped), the recipe's
comment or `[doc("…")]` as description, `[private]` recipes renamed `_name` (never selected),
the banner section they sit in (sections), and `{{ name }}` references to a variable assigned
a plain string (`prek := "prek run --all-files"`) expanded; recipe parameters and computed
values (backticks, concatenation, functions) stay as written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from . import sections
from .makefile import logical_lines
from .tasks import Task
from .text import one_line

_RECIPE: Final = re.compile(r"^@?([A-Za-z0-9_\-]+)(\s+[^:]*?)?\s*:(?!=)\s*(.*)$")
_DOC: Final = re.compile(r"""doc\(\s*(["'])(.*?)\1\s*\)""")
_QUOTED: Final = re.compile(r"""(["'])(?:\\.|(?!\1).)*\1""")
_VARIABLE: Final = re.compile(
    r"""^(?:export\s+)?([A-Za-z_][\w-]*)\s*:=\s*(?:"([^"\\{}`]*)"|'([^'{}`]*)')\s*(?:#.*)?$"""
)
_REFERENCE: Final = re.compile(r"\{\{\s*([A-Za-z_][\w-]*)\s*\}\}")
_SETTINGS: Final = ("set ", "alias ", "export ", "import ", "mod ")


def parse(text: str) -> Iterator[Task]:
    lines = logical_lines(text)
    titles = sections.titles(lines)
    variables = {
        m.group(1): m.group(2) if m.group(2) is not None else m.group(3)
        for m in map(_VARIABLE.match, lines)
        if m
    }

    def expand(command: str) -> str:
        return _REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), command)

    recipe: tuple[str, list[str], str, str] | None = None
    body: list[str] = []
    comments: list[str] = []
    attributes: list[str] = []
    for i, line in enumerate(lines):
        if line[:1] in (" ", "\t"):
            stripped = line.strip()
            if recipe is not None and stripped and not stripped.startswith("#"):
                body.append(expand(one_line(stripped).lstrip("@-").strip()))
            continue
        if recipe is not None:
            yield Task(recipe[0], tuple(recipe[1]), tuple(body), recipe[2], recipe[3])
            recipe, body = None, []
        stripped = line.strip()
        if not stripped or sections.banner(lines, i) is not None:
            comments, attributes = [], []
        elif stripped.startswith("#"):
            comments.append(stripped.lstrip("#").strip())
        elif stripped.startswith("["):
            attributes.append(stripped)
        elif not stripped.startswith(_SETTINGS):
            match = _RECIPE.match(_QUOTED.sub('""', stripped))
            if match is not None:
                private = any("private" in a for a in attributes)
                docs = [m.group(2) for a in attributes for m in _DOC.finditer(a)]
                deps = [d for d in match.group(3).split() if re.fullmatch(r"[\w\-]+", d)]
                name = match.group(1) if not private else "_" + match.group(1)
                recipe = (name, deps, docs[0] if docs else " ".join(comments), titles[i])
            comments, attributes = [], []
    if recipe is not None:
        yield Task(recipe[0], tuple(recipe[1]), tuple(body), recipe[2], recipe[3])
