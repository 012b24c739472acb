"""Makefile, justfile, package.json scripts, tox environments, nox sessions and the pre-commit
hooks: one fact per task an agent should know (tasks.select) saying exactly what it runs, with
the file's own description when it has one (a `## help` comment of make, the comment or
[doc()] of a just recipe, a tox description, a nox session's docstring); and the pytest
settings of a tox.ini [pytest] section, told as pyproject's are.

Pure and bounded: at most tasks.MAX_TASKS tasks per file, tasks.MAX_LINES recipe lines per task
and tasks.MAX_TEXT characters per text. Recipe lines are quoted as written (leading `@`/`-` of
make and just dropped; simple make variables such as `run := poetry run` expanded).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Sequence
from typing import Final

from ..domain.models import Source
from . import pre_commit, tasks, tox_envs
from .port import Candidate
from .settings import pytest_settings
from .sources import BUILD_TARGETS, file_format, text_of
from .tasks import Task
from .text import one_line

KIND: Final = "fact"
PRE_COMMIT: Final = "pre-commit"
TOX_INI: Final = "tox.ini"


def derive(source: Source, siblings: Sequence[Source] = ()) -> list[Candidate]:
    """Candidates from one build file; `siblings` (the operation's sources) tell which tasks
    its rules files name."""
    fmt = file_format(source)
    text = text_of(source)
    if fmt is None or fmt[0] != BUILD_TARGETS or text is None:
        return []
    if fmt[1] == PRE_COMMIT:
        line = pre_commit.fact(text)
        refs = (source.ref,)
        return [Candidate(None, KIND, line, refs, BUILD_TARGETS, "pre-commit")] if line else []
    out = task_candidates(fmt[1], targets(fmt[1], text), source, siblings, BUILD_TARGETS)
    if fmt[1] == "tox":
        settings = pytest_settings(tox_envs.pytest_options(text))
        if settings:
            line = f"pytest is configured in {TOX_INI}: " + "; ".join(settings) + "."
            out.append(Candidate(None, KIND, line, (source.ref,), BUILD_TARGETS, "pytest:tox"))
    return out


def task_candidates(
    runner: str, found: Sequence[Task], source: Source, siblings: Sequence[Source], adapter: str
) -> list[Candidate]:
    """One candidate per selected task of `runner`, citing `source` (shared with pyproject)."""
    out = []
    topic = tasks.RUNNERS[runner].topic
    for task, deps, lines in tasks.select(found, runner, tasks.mentioned(runner, siblings)):
        line = tasks.text(runner, task, deps, lines)
        if line is not None:
            key = f"{topic}:{task.name}" if task.name else topic
            out.append(Candidate(None, KIND, line, (source.ref,), adapter, key))
    return out


def targets(fmt: str, text: str) -> list[Task]:
    """The file's tasks in file order."""
    parsers = {"make": _make, "just": _just, "npm": _npm, "nox": _nox}
    if fmt == "tox":
        return tox_envs.from_ini(text)
    parse = parsers.get(fmt)
    return list(parse(text)) if parse else []


def defines(source: Source, name: str) -> bool:
    """Whether this build file defines the task `name` (for rules that mention it)."""
    fmt = file_format(source)
    text = text_of(source)
    if fmt is None or fmt[0] != BUILD_TARGETS or text is None:
        return False
    return any(t.name == name for t in targets(fmt[1], text))


_MAKE_RULE: Final = re.compile(r"^([A-Za-z0-9_.\-/ ]+?)\s*::?(?![=])\s*(.*)$")
_MAKE_VARIABLE: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?::=|\?=|=)\s*([^$]*)$")


def _logical_lines(text: str) -> list[str]:
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


def _make(text: str) -> Iterator[Task]:
    lines = _logical_lines(text)
    variables = {}
    for line in lines:
        match = _MAKE_VARIABLE.match(line)
        if match and not line.startswith("\t"):
            variables[match.group(1)] = one_line(match.group(2).split("#")[0])

    def expand(command: str) -> str:
        return re.sub(
            r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]",
            lambda m: variables.get(m.group(1), m.group(0)),
            command,
        )

    rules: list[tuple[list[str], list[str], list[str], str]] = []
    current: list[str] | None = None  # the command lines of the rule being read
    for line in lines:
        if line.startswith("\t"):
            if current is not None:
                command = one_line(line).lstrip("@-+ ").strip()
                if command and not command.startswith("#"):
                    current.append(expand(command))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        current = None
        match = _MAKE_RULE.match(line)
        if match is None or "=" in match.group(1) or line.lstrip() != line:
            continue
        names = [n for n in match.group(1).split() if not n.startswith(".") and "%" not in n]
        head, recipe = _split_rule(match.group(2))
        prerequisites, _, comment = head.partition("#")
        doc = comment[1:] if comment.startswith("#") else ""  # a `## help` comment
        if "=" in prerequisites:  # a target-specific variable, not a rule
            continue
        deps = [d for d in prerequisites.split() if "$" not in d and "%" not in d]
        commands = [expand(one_line(recipe))] if recipe.strip() else []
        if not names:
            continue
        current = commands
        rules.append((names, deps, commands, one_line(doc)))
    for names, deps, commands, doc in rules:
        for name in names:  # the lists are final now: later recipe lines landed in each
            yield Task(name, tuple(deps), tuple(commands), doc)


def _split_rule(rest: str) -> tuple[str, str]:
    """(prerequisites and comment, inline recipe) of a rule line after its colon: a `;` starts
    the recipe only before any `#`, which starts a comment (`## Update; note: ...`)."""
    semicolon, comment = rest.find(";"), rest.find("#")
    if semicolon < 0 or 0 <= comment < semicolon:
        return rest, ""
    return rest[:semicolon], rest[semicolon + 1 :]


_JUST_RECIPE: Final = re.compile(r"^@?([A-Za-z0-9_\-]+)(\s+[^:]*?)?\s*:(?!=)\s*(.*)$")
_JUST_DOC: Final = re.compile(r"""doc\(\s*(["'])(.*?)\1\s*\)""")
_QUOTED: Final = re.compile(r"""(["'])(?:\\.|(?!\1).)*\1""")


def _just(text: str) -> Iterator[Task]:
    """Recipes with their comment (or [doc("...")]) as description; [private] ones left out."""
    recipe: tuple[str, list[str], str] | None = None
    body: list[str] = []
    comments: list[str] = []
    attributes: list[str] = []
    for line in _logical_lines(text):
        if line[:1] in (" ", "\t"):
            stripped = line.strip()
            if recipe is not None and stripped and not stripped.startswith("#"):
                body.append(one_line(stripped).lstrip("@-").strip())
            continue
        if recipe is not None:
            yield Task(recipe[0], tuple(recipe[1]), tuple(body), recipe[2])
            recipe, body = None, []
        stripped = line.strip()
        if not stripped:
            comments, attributes = [], []
        elif stripped.startswith("#"):
            comments.append(stripped.lstrip("#").strip())
        elif stripped.startswith("["):
            attributes.append(stripped)
        elif not stripped.startswith(("set ", "alias ", "export ", "import ", "mod ")):
            match = _JUST_RECIPE.match(_QUOTED.sub('""', stripped))
            if match is not None:
                private = any("private" in a for a in attributes)
                docs = [m.group(2) for a in attributes for m in _JUST_DOC.finditer(a)]
                deps = [d for d in match.group(3).split() if re.fullmatch(r"[\w\-]+", d)]
                name = match.group(1) if not private else "_" + match.group(1)
                recipe = (name, deps, docs[0] if docs else " ".join(comments))
            comments, attributes = [], []
    if recipe is not None:
        yield Task(recipe[0], tuple(recipe[1]), tuple(body), recipe[2])


def _npm(text: str) -> Iterator[Task]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return
    for name, command in scripts.items():
        if isinstance(command, str) and command.strip():
            yield Task(name, (), (one_line(command),))


def _nox(text: str) -> Iterator[Task]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        name = _nox_session_name(node)
        if name is None:
            continue
        commands = [
            " ".join(_literal(a) for a in call.args)
            for call in ast.walk(node)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == "run"
        ]
        doc = one_line((ast.get_docstring(node) or "").split("\n\n")[0])
        yield Task(name, (), tuple(c for c in commands if c), doc)


def _nox_session_name(node: ast.FunctionDef) -> str | None:
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute) and target.attr == "session":
            if isinstance(decorator, ast.Call):
                for keyword in decorator.keywords:
                    if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
            return node.name
    return None


def _literal(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f'"{node.value}"' if " " in node.value else node.value
    return "…"
