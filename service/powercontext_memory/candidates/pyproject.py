"""pyproject.toml: build backend, package manager, requires-python, pytest, lint/format/type
tools, and the tasks of the task runners configured there (poe, Hatch scripts, PDM scripts,
taskipy, tox: pyproject_tasks).

Pure: the same source (and the same sibling sources of the operation) always derive the same
texts, in English, one candidate per topic, each citing exactly the sources that support it.
The package manager is the one the sources evidence: its [tool.X] table or its lock file sent
as a source (uv.lock, poetry.lock, pdm.lock) first, else its command in a build file or a
rules file. The build backend is named by the distribution that provides it (build_backend).
A tool is named with the role the file states, never one it does not ("Ruff (lint)" for a
[tool.ruff.lint] table; "format" only with a [tool.ruff.format] table), and with a few
settings that matter (SETTINGS), never a dump of its table.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from typing import Any, Final

from ..domain.models import Source
from . import build_backend, build_targets, pyproject_tasks
from .port import Candidate
from .settings import plain, pytest_settings, value
from .sources import AGENT_RULES, PYPROJECT, file_format, repo_path, text_of

# name, its [tool.X] key (Hatch: an environment of its own), its lock file, its command in a
# build file, its mention in a rules file (prose written about this repository).
MANAGERS: Final = (
    (
        "uv",
        ("uv",),
        "uv.lock",
        re.compile(r"\buv\s+(?:run|sync|add|lock|pip|tool|venv)\b"),
        re.compile(r"\buv\b"),
    ),
    (
        "Poetry",
        ("poetry",),
        "poetry.lock",
        re.compile(r"\bpoetry\s+(?:run|install|add|lock|sync)\b"),
        None,
    ),
    ("PDM", ("pdm",), "pdm.lock", re.compile(r"\bpdm\s+(?:run|install|add|lock|sync)\b"), None),
    ("Hatch", ("hatch", "envs", "default"), "", re.compile(r"\bhatch\s+(?:run|env|shell)\b"), None),
)
# Build files whose commands evidence a package manager (a noxfile's Python code does not).
COMMAND_FORMATS: Final = frozenset({"make", "just", "npm", "pre-commit"})

TOOLS: Final = {
    "ruff": "Ruff",
    "black": "Black (format)",
    "isort": "isort (import order)",
    "flake8": "flake8 (lint)",
    "pylint": "Pylint (lint)",
    "mypy": "mypy (type checking)",
    "pyright": "Pyright (type checking)",
    "basedpyright": "basedpyright (type checking)",
}
# The settings that change how code must be written or checked; the rest of a table is not
# repeated (a dump is not memory).
SETTINGS: Final = {
    "ruff": ("line-length", "target-version", "format.quote-style"),
    "black": ("line-length", "target-version", "skip-string-normalization"),
    "isort": ("profile", "line_length"),
    "flake8": ("max-line-length",),
    "pylint": ("max-line-length",),
    "mypy": ("strict",),
    "pyright": ("typeCheckingMode",),
    "basedpyright": ("typeCheckingMode",),
}
KIND: Final = "fact"


def derive(source: Source, siblings: Sequence[Source] = ()) -> list[Candidate]:
    """Candidates from one pyproject.toml; `siblings` are the operation's other sources."""
    text = text_of(source)
    if text is None:
        return []
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    out: list[Candidate] = []

    def fact(topic: str, line: str, *more: Source) -> None:
        refs = tuple(sorted({source.ref, *(s.ref for s in more)}))
        out.append(Candidate(None, KIND, line, refs, PYPROJECT, f"pyproject:{topic}"))

    backend = _get(data, "build-system", "build-backend")
    if isinstance(backend, str) and backend.strip():
        requires = _get(data, "build-system", "requires")
        fact("build-backend", build_backend.sentence(backend, requires))
    manager = _package_manager(data, source, siblings)
    if manager is not None:
        name, evidence = manager
        fact("package-manager", f"Dependencies are managed with {name}.", *evidence)
    requires = _get(data, "project", "requires-python")
    if isinstance(requires, str) and requires.strip():
        fact("requires-python", f"Requires Python {requires.strip()} (project.requires-python).")
    pytest = _get(data, "tool", "pytest", "ini_options")
    if isinstance(pytest, dict):
        settings = pytest_settings(pytest)
        if settings:
            fact("pytest", "pytest is configured in pyproject.toml: " + "; ".join(settings) + ".")
    tools = data.get("tool")
    for key, label in TOOLS.items():
        table = tools.get(key) if isinstance(tools, dict) else None
        if not isinstance(table, dict):
            continue
        settings = [
            f"{k} = {value(v)}"
            for k in SETTINGS[key]
            if (v := _get(table, *k.split("."))) is not None and plain(v)
        ]
        label = _ruff_label(table) if key == "ruff" else label
        detail = ": " + "; ".join(settings) if settings else "" if table else " (default settings)"
        fact(f"tool:{key}", f"{label} is configured in pyproject.toml{detail}.")
    for runner, found in pyproject_tasks.tasks(data).items():
        out.extend(build_targets.task_candidates(runner, found, source, siblings, PYPROJECT))
    return out


def _ruff_label(table: dict[str, Any]) -> str:
    """Ruff with the roles its table states: lint settings, a [tool.ruff.format] table."""
    lints = isinstance(table.get("lint"), dict) or any(
        k in table for k in ("select", "extend-select", "ignore")
    )
    formats = isinstance(table.get("format"), dict)
    roles = [role for role, shown in (("lint", lints), ("format", formats)) if shown]
    return f"Ruff ({' and '.join(roles)})" if roles else "Ruff"


def _package_manager(
    data: dict[str, Any], source: Source, siblings: Sequence[Source]
) -> tuple[str, list[Source]] | None:
    """The manager a [tool.X] table or a lock file evidences, else a command or a mention."""
    others = [s for s in siblings if s.source_id != source.source_id]
    for name, table, lock, _command, _prose in MANAGERS:
        locks = [s for s in others if bool(lock) and (repo_path(s) or "").endswith(lock)]
        if _get(data, "tool", *table) is not None or locks:
            return name, locks + [s for s in others if _says(s, name)]
    for name, *_ in MANAGERS:
        evidence = [s for s in others if _says(s, name)]
        if evidence:
            return name, evidence
    return None


def _says(source: Source, manager: str) -> bool:
    """A build file runs the manager's command, or a rules file names it."""
    fmt = file_format(source)
    if fmt is None:
        return False
    _, _, _, command, prose = next(m for m in MANAGERS if m[0] == manager)
    text = text_of(source) or ""
    if fmt[1] in COMMAND_FORMATS:
        return bool(command.search(text))
    return fmt[0] == AGENT_RULES and bool((prose or command).search(text))


def _get(data: dict[str, Any], *keys: str) -> Any:
    value: Any = data
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
