"""tox environments, from tox.ini (or pyproject's legacy_tox_ini) and from pyproject's native
[tool.tox] tables, as Tasks; and the [pytest] section a tox.ini may hold.

The environments of the env list that have no section of their own run the base environment
([testenv] / env_run_base): they become one task named "" — `tox` itself — whose description
lists them, rather than one entry per Python version. Factor-conditional lines (`cov: ...`)
are left out: which factors apply is decided at run time.
"""

from __future__ import annotations

import configparser
import re
from collections.abc import Iterator
from typing import Any, Final

from .tasks import Task
from .text import join_bounded, one_line

_FACTOR_LINE: Final = re.compile(r"^[\w{},.!-]+:\s")
MAX_ENVS: Final = 8


def from_ini(text: str) -> list[Task]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    base = _ini_commands(parser, "testenv")
    envlist = parser.get("tox", "envlist", fallback="") or parser.get(
        "tox", "env_list", fallback=""
    )
    own = {s.split(":", 1)[1] for s in parser.sections() if s.startswith("testenv:")}
    out = list(_default([e for e in split_envlist(envlist) if e not in own], base))
    for section in parser.sections():
        if section.startswith("testenv:"):
            commands = _ini_commands(parser, section) or base
            doc = parser.get(section, "description", fallback="")
            out.append(Task(section.split(":", 1)[1], (), tuple(commands), one_line(doc)))
    return out


def pytest_options(text: str) -> dict[str, str]:
    """tox.ini's [pytest] section, where pytest reads its settings too ({} when there is none)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return {}
    return dict(parser["pytest"]) if parser.has_section("pytest") else {}


def from_toml(table: dict[str, Any]) -> list[Task]:
    """tox >= 4.21 configured in pyproject.toml ([tool.tox])."""
    legacy = table.get("legacy_tox_ini")
    if isinstance(legacy, str):
        return from_ini(legacy)
    base = _toml_commands(table.get("env_run_base"))
    envs = table.get("env")
    if not isinstance(envs, dict):
        envs = {}
    names = table.get("env_list") or table.get("envlist") or []
    listed = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []
    out = list(_default([e for e in listed if e not in envs], base))
    for name, env in envs.items():
        if isinstance(env, dict):
            commands = _toml_commands(env) or base
            doc = env.get("description") if isinstance(env.get("description"), str) else ""
            out.append(Task(name, (), tuple(commands), one_line(doc or "")))
    return out


def split_envlist(envlist: str) -> list[str]:
    """Comma/newline separated names; commas inside `{...}` (generative names) stay."""
    out, depth, current = [], 0, ""
    for char in envlist:
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and (char == "," or char.isspace()):
            if current.strip():
                out.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current.strip())
    return out


def _default(envs: list[str], base: list[str]) -> Iterator[Task]:
    if envs and base:
        doc = "env list " + join_bounded(envs, MAX_ENVS)
        yield Task("", (), tuple(base), doc)


def _ini_commands(parser: configparser.ConfigParser, section: str) -> list[str]:
    raw = parser.get(section, "commands", fallback="")
    lines = [one_line(c) for c in raw.split("\n")]
    return [c for c in lines if c and not c.startswith("#") and not _FACTOR_LINE.match(c)]


def _toml_commands(env: object) -> list[str]:
    commands = env.get("commands") if isinstance(env, dict) else None
    if not isinstance(commands, list):
        return []
    out = []
    for command in commands:
        if isinstance(command, list):
            words = [_toml_word(w) for w in command]
            out.append(" ".join(w for w in words if w))
    return [c for c in out if c]


def _toml_word(word: object) -> str:
    if isinstance(word, str):
        return word
    if isinstance(word, dict) and word.get("replace") == "posargs":
        return "{posargs}"
    if isinstance(word, dict) and word.get("replace") == "env":
        return "{env:" + str(word.get("name", "")) + "}"
    return ""
