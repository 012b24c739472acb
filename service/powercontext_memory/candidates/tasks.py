"""Tasks of a task runner (make, just, npm, tox, nox, poe, hatch, pdm, taskipy): which ones an
agent should know, and one English line each saying what it runs.

select() keeps a task when its name is a build / test / lint ... task (task_names), when it
only runs two or more such tasks (`qa: check test`), or when a rules file of the operation
names it (`make snapshots-fix` in AGENTS.md); it leaves out private tasks (`_x`), releases (by
name, by the file section they sit in, or because they run a publishing tool such as twine),
shell plumbing (recipes that only rm, mkdir, echo, cd ...; a `;` inside quotes splits nothing),
and unless a rules file names them: housekeeping (`clean`, `coverage-reset`), recipes for a
person or a machine (they open a viewer, pipe a download into a shell or install system
packages), tasks for another caller (named after a CI service, or helpers fed files:
`format:files`), the steps of one other task named after it (`tests-parallel` of `tests`) and the
argument variants of another task (`integration-tests-nightly` of `integration-tests`).
text() quotes the commands as written; calls of sibling tasks are named as such.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from ..domain.models import Source
from .for_a_person import for_a_person as person_command
from .shell import statements
from .sources import AGENT_RULES, file_format, text_of
from .task_names import (
    for_another_caller,
    housekeeping,
    is_compound,
    parts,
    publishes,
    release_section,
    relevant,
)
from .text import clip, join_bounded, one_line

# Programs whose lines only move files or print: a recipe made of nothing else is plumbing.
PLUMBING: Final = frozenset(
    {
        "rm", "rmdir", "mkdir", "echo", "printf", "cd", "cat", "cp", "mv", "touch", "ln", "true",
        "false", ":", "@:", "grep", "sed", "awk", "sleep", "exit", "set", "trap", "wait", "kill",
        "export", "open", "xdg-open", "find", "chmod",
    }
)  # fmt: skip
MAX_TASKS: Final = 24
MAX_LINES: Final = 6
MAX_TEXT: Final = 600
MAX_DOC: Final = 160
_ASSIGNMENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
# How a rules file names a task: the runner's command, then the task name.
MENTION: Final = re.compile(
    r"\b(make|just|npm run|tox -e|nox -s|poe|hatch run|pdm run|task)\s+([A-Za-z0-9_.:\-]+)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Task:
    """One task: the tasks it runs first, its command lines as written, the file's own words."""

    name: str
    deps: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    doc: str = ""
    section: str = ""  # the title of the file section it is in ("Publishing to PyPI")


@dataclass(frozen=True)
class Runner:
    """How a runner's tasks are invoked (`make test`) and called from another task's recipe."""

    command: str  # "make", "just", "npm run", "tox -e", "nox -s", "poe", "hatch run", ...
    topic: str  # topic prefix of the derived candidates ("make:test")
    call: re.Pattern[str]  # a recipe line that runs another task of the same file


RUNNERS: Final = {
    "make": Runner("make", "make", re.compile(r"(?:\$[({]MAKE[)}]|\bmake)\s+([\w.\-]+)")),
    "just": Runner("just", "just", re.compile(r"\bjust\s+([\w\-]+)")),
    "npm": Runner("npm run", "npm", re.compile(r"\bnpm run\s+([\w:.\-]+)")),
    "tox": Runner("tox -e", "tox", re.compile(r"\btox -e\s+([\w.\-]+)")),
    "nox": Runner("nox -s", "nox", re.compile(r"\bnox -s\s+([\w.\-]+)")),
    "poe": Runner("poe", "poe", re.compile(r"\bpoe\s+([\w\-]+)")),
    "hatch": Runner("hatch run", "hatch", re.compile(r"\bhatch run\s+([\w:.\-]+)")),
    "pdm": Runner("pdm run", "pdm", re.compile(r"\bpdm run\s+([\w:.\-]+)")),
    "taskipy": Runner("task", "task", re.compile(r"\btask\s+([\w\-]+)")),
}


def mentioned(runner: str, siblings: Sequence[Source]) -> frozenset[str]:
    """The task names the operation's rules files (AGENTS.md ...) name with this runner."""
    wanted = RUNNERS[runner].command
    names = set()
    for other in siblings:
        fmt = file_format(other)
        if fmt is None or fmt[0] != AGENT_RULES:
            continue
        for command, name in MENTION.findall(text_of(other) or ""):
            if " ".join(command.lower().split()) == wanted:
                names.add(name.rstrip(".:,;`"))
    return frozenset(names)


def is_plumbing(line: str) -> bool:
    """Every statement of the line runs a file-moving or printing program (or is empty), or only
    prints a version or a Python one-liner's answer (`uv --version`, `python -c "…print(…)"`)."""
    for segment in statements(line):
        words = [w for w in segment.split() if not _ASSIGNMENT.fullmatch(w)]
        if words and words[0].lstrip("@-") not in PLUMBING and not _only_prints(words):
            return False
    return True


_VERSION_FLAGS: Final = frozenset({"--version", "-V"})


def _only_prints(words: Sequence[str]) -> bool:
    if len(words) == 2 and words[1] in _VERSION_FLAGS:
        return True
    python = words[0] in ("python", "python3") and len(words) > 2 and words[1] == "-c"
    return python and "print(" in " ".join(words[2:])


# A publishing tool: a recipe that runs it is a step of a release, whatever its name.
_PUBLISHING: Final = re.compile(
    r"\btwine\s|\b(?:uv|poetry|flit|hatch|pdm|npm)\s+publish\b|\bgh\s+release\b"
)


def releases(task: Task) -> bool:
    """The task publishes: its name, its file section or a publishing tool it runs says so."""
    return (
        publishes(task.name)
        or release_section(task.section)
        or any(_PUBLISHING.search(line) for line in task.commands)
    )


def for_a_person(task: Task) -> bool:
    """The recipe is for a person at the machine (for_a_person.py): an agent runs tasks
    unattended."""
    return any(person_command(line) for line in task.commands)


def select(
    tasks: Sequence[Task], runner: str, mentions: Iterable[str] = ()
) -> list[tuple[Task, list[str], list[str]]]:
    """(task, deps to name, command lines to quote) for the tasks worth an entry, in file order."""
    named = frozenset(mentions)
    by_name = {t.name: t for t in tasks}
    call = RUNNERS[runner].call

    def calls(task: Task) -> list[str]:
        return [n for line in task.commands for n in call.findall(line) if n in by_name]

    plumbing: dict[str, bool] = {}

    def only_plumbing(task: Task, seen: frozenset[str] = frozenset()) -> bool:
        if task.name not in plumbing:
            inner = [by_name[d] for d in (*task.deps, *calls(task)) if d in by_name]
            own = [line for line in task.commands if not call.search(line)]
            plumbing[task.name] = all(is_plumbing(line) for line in own) and all(
                d.name in seen or only_plumbing(d, seen | {task.name}) for d in inner
            )
        return plumbing[task.name]

    def aggregate(task: Task) -> bool:
        """Runs nothing of its own but two or more build / test / lint ... tasks (`qa: check
        test`): a task to know whatever its name."""
        inner = [by_name[d] for d in (*task.deps, *calls(task)) if d in by_name]
        own = [line for line in task.commands if not call.search(line)]
        return (
            len(inner) >= 2
            and all(is_plumbing(line) for line in own)
            and all(relevant(d.name) and not releases(d) for d in inner)
        )

    parents: dict[str, set[str]] = {}
    for task in tasks:
        for child in (*task.deps, *calls(task)):
            parents.setdefault(child, set()).add(task.name)
    kept = [
        t
        for t in tasks
        if not t.name.startswith(("_", "."))
        and not releases(t)
        and (t.name in named or relevant(t.name) or not t.name or aggregate(t))
        and (
            t.name in named
            or not (housekeeping(t.name) or for_another_caller(t.name) or for_a_person(t))
        )
        and (t.commands or t.deps)  # a description alone runs nothing
        and not only_plumbing(t)
    ]
    names = {t.name for t in kept}
    out = []
    for task in kept:
        if task.name not in named and (
            _step_of(task.name, parents.get(task.name, set()) & names)
            or _variant(task, [by_name[n] for n in names if n != task.name])
        ):
            continue
        deps = [
            d
            for d in task.deps
            if not d.startswith((".", "_")) and not (d in by_name and only_plumbing(by_name[d]))
        ]
        lines = _lines(task, RUNNERS[runner], by_name)
        out.append((task, deps, lines))
    return out[:MAX_TASKS]


def _step_of(name: str, parents: set[str]) -> bool:
    """A step of exactly one other kept task whose name starts the same (`tests-serial`); a
    one-word name (`fix`, run by `fix-and-check`) is a task of its own, not a step."""
    if len(parents) != 1 or not is_compound(name):
        return False
    (parent,) = parents
    return _first_part(parent) == _first_part(name)


def _variant(task: Task, others: Sequence[Task]) -> bool:
    """`x-something` that runs what `x` runs with other arguments (`integration-tests-nightly`)."""
    if not task.commands:
        return False
    head = _head(task.commands[0])
    return any(
        task.name.startswith(other.name + "-")
        and other.commands
        and _head(other.commands[0]) == head
        for other in others
    )


def _head(command: str) -> list[str]:
    """The first words of a command line, environment assignments left out."""
    return [w for w in command.split() if not _ASSIGNMENT.fullmatch(w)][:3]


def _first_part(name: str) -> str:
    return parts(name)[0]


def _lines(task: Task, runner: Runner, by_name: dict[str, Task]) -> list[str]:
    """The task's command lines, plumbing left out; a shell script that calls sibling tasks
    (`set -e; $(MAKE) mypy & ...`) is named by those calls."""
    out: list[str] = []
    for line in task.commands:
        called = [n for n in runner.call.findall(line) if n in by_name]
        if called and len(statements(line)) > 2:
            out.extend(f"{runner.command} {n}" for n in called)
        elif not is_plumbing(line) and line.replace("…", "").strip():
            out.append(_MAKE_VAR.sub("make", line))
    return list(dict.fromkeys(out))


_MAKE_VAR: Final = re.compile(r"\$[({]MAKE[)}]")


def text(runner: str, task: Task, deps: Sequence[str], lines: Sequence[str]) -> str | None:
    """The entry text, e.g. "`make check` runs first `make lint`, then `uv run mypy`.", or None
    when the task has nothing to quote and no description."""
    command = RUNNERS[runner].command
    parts = []
    if deps:
        parts.append("first " + ", ".join(f"`{command} {d}`" for d in deps))
    if lines:
        parts.append(join_bounded([f"`{line}`" for line in lines], MAX_LINES, "; "))
    doc = clip(one_line(task.doc).rstrip(". "), MAX_DOC)
    invocation = f"{command} {task.name}" if task.name else command.split()[0]
    head = f"`{invocation}`" + (f" ({doc})" if doc and parts else "")
    if parts:
        return clip(f"{head} runs " + ", then ".join(parts) + ".", MAX_TEXT)
    return f"{head}: {doc}." if doc else None
