"""Makefile rules as Tasks: each target's prerequisites, its recipe lines (leading `@`, `-`,
`+` dropped) and its `## help` comment, with simple variables (`run := poetry run`) expanded
and the title of the banner section it sits in (sections).

Not a make implementation: pattern rules, target-specific variables and functions are not
evaluated. In a variable's value `\\#` is a literal `#`; an unescaped `#` starts a comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

from . import sections
from .tasks import Task
from .text import one_line

_RULE: Final = re.compile(r"^([A-Za-z0-9_.\-/ ]+?)\s*::?(?![=])\s*(.*)$")
_VARIABLE: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?::=|\?=|=)\s*([^$]*)$")
_COMMENT: Final = re.compile(r"(?<!\\)#")
_REFERENCE: Final = re.compile(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]")


def logical_lines(text: str) -> list[str]:
    """Backslash continuations joined."""
    out: list[str] = []
    pending = ""
    for raw in text.split("\n"):
        if raw.endswith("\\"):
            pending += raw[:-1] + " "
            continue
        out.append(pending + raw)
        pending = ""
    if pending:
        out.append(pending)
    return out


def parse(text: str) -> Iterator[Task]:
    lines = logical_lines(text)
    titles = sections.titles(lines)
    variables = {}
    for line in lines:
        match = _VARIABLE.match(line)
        if match and not line.startswith("\t"):
            value = _COMMENT.split(match.group(2))[0].replace("\\#", "#")
            variables[match.group(1)] = one_line(value)

    def expand(command: str) -> str:
        return _REFERENCE.sub(lambda m: variables.get(m.group(1), m.group(0)), command)

    rules: list[tuple[list[str], list[str], list[str], str, str]] = []
    current: list[str] | None = None  # the command lines of the rule being read
    for i, line in enumerate(lines):
        if line.startswith("\t"):
            if current is not None:
                command = one_line(line).lstrip("@-+ ").strip()
                if command and not command.startswith("#"):
                    current.append(expand(command))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        current = None
        match = _RULE.match(line)
        if match is None or "=" in match.group(1) or line.lstrip() != line:
            continue
        names = [n for n in match.group(1).split() if not n.startswith(".") and "%" not in n]
        head, recipe = _split_rule(match.group(2))
        prerequisites, _, comment = head.partition("#")
        doc = comment[1:] if comment.startswith("#") else ""  # a `## help` comment
        if "=" in prerequisites or not names:  # a target-specific variable, not a rule
            continue
        deps = [d for d in prerequisites.split() if "$" not in d and "%" not in d]
        current = [expand(one_line(recipe))] if recipe.strip() else []
        rules.append((names, deps, current, one_line(doc), titles[i]))
    for names, deps, commands, doc, section in rules:
        for name in names:  # the lists are final now: later recipe lines landed in each
            yield Task(name, tuple(deps), tuple(commands), doc, section)


def _split_rule(rest: str) -> tuple[str, str]:
    """(prerequisites and comment, inline recipe) of a rule line after its colon: a `;` starts
    the recipe only before any `#`, which starts a comment (`## Update; note: ...`)."""
    semicolon, comment = rest.find(";"), rest.find("#")
    if semicolon < 0 or 0 <= comment < semicolon:
        return rest, ""
    return rest[:semicolon], rest[semicolon + 1 :]
