"""pyproject.toml: build backend, package manager, requires-python, pytest, lint/format/type tools.

Pure: the same source (and the same sibling sources of the operation) always derive the same
texts, in English, one candidate per topic, each citing exactly the sources that support it.
The package manager is the one the sources evidence: its [tool.X] table, its lock file sent as
a source (uv.lock, poetry.lock, pdm.lock), or its command in a Makefile/justfile/AGENTS.md.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from typing import Any, Final

from ..domain.models import Source
from .port import Candidate
from .sources import PYPROJECT, file_format, repo_path, text_of
from .text import clip, join_bounded

BACKENDS: Final = {
    "hatchling": "Hatchling",
    "setuptools": "setuptools",
    "poetry": "poetry-core",
    "pdm": "pdm-backend",
    "flit_core": "Flit",
    "maturin": "maturin",
    "mesonpy": "meson-python",
    "scikit_build_core": "scikit-build-core",
    "uv_build": "uv_build",
}

# name, its [tool.X] key, its lock file, its command in build files and agent rules.
MANAGERS: Final = (
    ("uv", "uv", "uv.lock", re.compile(r"\buv\b")),
    ("Poetry", "poetry", "poetry.lock", re.compile(r"\bpoetry\s+(?:run|install|add|lock)\b")),
    ("PDM", "pdm", "pdm.lock", re.compile(r"\bpdm\s+(?:run|install|add|lock|sync)\b")),
    ("Hatch", "hatch", "", re.compile(r"\bhatch\s+(?:run|env|build|test|fmt)\b")),
)

TOOLS: Final = {
    "ruff": "Ruff (lint and format)",
    "black": "Black (format)",
    "isort": "isort (import order)",
    "flake8": "flake8 (lint)",
    "pylint": "Pylint (lint)",
    "mypy": "mypy (type checking)",
    "pyright": "Pyright (type checking)",
    "basedpyright": "basedpyright (type checking)",
}
PYTEST_KEYS: Final = ("testpaths", "addopts", "asyncio_mode", "minversion")
MAX_SETTINGS: Final = 8
MAX_LIST_ITEMS: Final = 8
MAX_VALUE_CHARS: Final = 80
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
        module = backend.strip().split(".")[0].split(":")[0]
        name = BACKENDS.get(module, module)
        fact("build-backend", f"The package is built with {name} (build backend {backend}).")
    manager = _package_manager(data, source, siblings)
    if manager is not None:
        name, evidence = manager
        fact("package-manager", f"Dependencies are managed with {name}.", *evidence)
    requires = _get(data, "project", "requires-python")
    if isinstance(requires, str) and requires.strip():
        fact("requires-python", f"Requires Python {requires.strip()} (project.requires-python).")
    pytest = _get(data, "tool", "pytest", "ini_options")
    if isinstance(pytest, dict):
        settings = [f"{k} = {_value(pytest[k])}" for k in PYTEST_KEYS if k in pytest]
        if settings:
            fact("pytest", "pytest is configured in pyproject.toml: " + "; ".join(settings) + ".")
    tools = data.get("tool")
    for key, label in TOOLS.items():
        table = tools.get(key) if isinstance(tools, dict) else None
        if not isinstance(table, dict):
            continue
        settings = _settings(table)
        detail = ": " + "; ".join(settings) if settings else " (default settings)"
        fact(f"tool:{key}", f"{label} is configured in pyproject.toml{detail}.")
    return out


def _package_manager(
    data: dict[str, Any], source: Source, siblings: Sequence[Source]
) -> tuple[str, list[Source]] | None:
    tools = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    for name, tool_key, lock, command in MANAGERS:
        evidence: list[Source] = []
        in_pyproject = isinstance(tools, dict) and tool_key in tools
        for other in siblings:
            if other.source_id == source.source_id:
                continue
            path = repo_path(other) or ""
            locked = bool(lock) and path.rsplit("/", 1)[-1] == lock
            if locked or (file_format(other) is not None and command.search(text_of(other) or "")):
                evidence.append(other)
        if in_pyproject or evidence:
            return name, evidence
    return None


def _get(data: dict[str, Any], *keys: str) -> Any:
    value: Any = data
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _settings(table: dict[str, Any]) -> list[str]:
    """Scalar and list settings, one nested table deep ("lint.select = E, F"), bounded."""
    flat: list[str] = []
    for key, value in table.items():
        if isinstance(value, dict):
            for sub, inner in value.items():
                if _plain(inner):
                    flat.append(f"{key}.{sub} = {_value(inner)}")
        elif _plain(value):
            flat.append(f"{key} = {_value(value)}")
    if len(flat) > MAX_SETTINGS:
        return [*flat[:MAX_SETTINGS], f"(+{len(flat) - MAX_SETTINGS} more)"]
    return flat


def _plain(value: Any) -> bool:
    if isinstance(value, list):
        return all(isinstance(v, str | int | float | bool) for v in value)
    return isinstance(value, str | int | float | bool)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return clip(join_bounded([_value(v) for v in value], MAX_LIST_ITEMS), MAX_VALUE_CHARS)
    return clip(" ".join(str(value).split()), MAX_VALUE_CHARS)
