"""Makefile, justfile, package.json scripts, tox environments, nox sessions and the pre-commit
hooks: one fact per task an agent should know (tasks.select) saying exactly what it runs, with
the file's own description when it has one (a `## help` comment of make, the comment or
[doc()] of a just recipe, a tox description, a nox session's docstring); and the pytest
settings of a tox.ini [pytest] section, told as pyproject's are.

Pure and bounded: at most tasks.MAX_TASKS tasks per file, tasks.MAX_LINES recipe lines per task
and tasks.MAX_TEXT characters per text. Recipe lines are quoted as written (leading `@`/`-` of
make and just dropped; simple make and just variables such as `run := poetry run` expanded;
a nox session's literal arguments, starred lists written in the file unpacked). The readers:
makefile.py, justfile.py, nox_sessions.py, tox_envs.py, pre_commit.py; package.json here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Final

from ..domain.models import Source
from . import justfile, makefile, nox_sessions, pre_commit, tasks, tox_envs
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
    parsers = {
        "make": makefile.parse,
        "just": justfile.parse,
        "npm": _npm,
        "nox": nox_sessions.parse,
    }
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
