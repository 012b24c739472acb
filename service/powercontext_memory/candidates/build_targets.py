"""Makefile, justfile, package.json scripts, tox environments, nox sessions: one fact per
relevant target (build/test/lint/check/docs/format/typecheck ...) saying exactly what it runs.

Pure and bounded: at most MAX_TARGETS targets per file, MAX_LINES recipe lines per target and
MAX_TEXT characters per text. A target is relevant when one part of its name (split at
`-_:.`) is a RELEVANT word, so `docs-test` and `test:unit` count. Recipe lines are quoted as
written (leading `@`/`-` of make dropped); variables are not expanded.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
from collections.abc import Iterator
from typing import Final

from ..domain.models import Source
from .port import Candidate
from .sources import BUILD_TARGETS, file_format, text_of
from .text import clip, join_bounded, one_line

RELEVANT: Final = frozenset(
    {
        "build", "test", "tests", "lint", "check", "checks", "docs", "doc", "format", "fmt",
        "typecheck", "types", "mypy", "pyright", "ci", "coverage", "cov", "verify", "bench",
        "e2e", "unit", "integration", "style", "validate", "all", "dist", "package", "release",
        "serve", "dev", "install", "setup", "clean",
    }
)  # fmt: skip
_PYTHON_ENV: Final = re.compile(r"py\d{0,3}")
MAX_TARGETS: Final = 24
MAX_LINES: Final = 6
MAX_TEXT: Final = 600
KIND: Final = "fact"

# What a target is run with, per format: (command prefix, topic prefix).
RUNNERS: Final = {
    "make": ("make", "make"),
    "just": ("just", "just"),
    "npm": ("npm run", "npm"),
    "tox": ("tox -e", "tox"),
    "nox": ("nox -s", "nox"),
}


def relevant(name: str) -> bool:
    """A build/test/lint/docs... target; tox's `py312`-style environments run the tests."""
    lowered = name.lower()
    return bool(_PYTHON_ENV.fullmatch(lowered)) or any(
        part in RELEVANT for part in re.split(r"[-_:./]", lowered)
    )


def derive(source: Source) -> list[Candidate]:
    fmt = file_format(source)
    text = text_of(source)
    if fmt is None or fmt[0] != BUILD_TARGETS or text is None:
        return []
    runner, topic = RUNNERS[fmt[1]]
    out: list[Candidate] = []
    for name, deps, lines in targets(fmt[1], text):
        if not relevant(name) or len(out) >= MAX_TARGETS:
            continue
        parts = []
        if deps:
            parts.append("first " + ", ".join(f"`{runner} {d}`" for d in deps))
        if lines:
            parts.append(join_bounded([f"`{line}`" for line in lines], MAX_LINES, "; "))
        if not parts:
            continue
        line = clip(f"`{runner} {name}` runs " + ", then ".join(parts) + ".", MAX_TEXT)
        out.append(Candidate(None, KIND, line, (source.ref,), BUILD_TARGETS, f"{topic}:{name}"))
    return out


def targets(fmt: str, text: str) -> list[tuple[str, list[str], list[str]]]:
    """(name, prerequisite targets, command lines) in file order."""
    parsers = {"make": _make, "just": _just, "npm": _npm, "tox": _tox, "nox": _nox}
    return list(parsers[fmt](text))


def defines(source: Source, name: str) -> bool:
    """Whether this build file defines the target `name` (for rules that mention it)."""
    fmt = file_format(source)
    text = text_of(source)
    if fmt is None or fmt[0] != BUILD_TARGETS or text is None:
        return False
    return any(t[0] == name for t in targets(fmt[1], text))


_MAKE_RULE: Final = re.compile(r"^([A-Za-z0-9_.\-/ ]+?)\s*::?(?![=])\s*(.*)$")


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


def _make(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    current: list[str] | None = None  # the command lines of the rule being read
    for line in _logical_lines(text):
        if line.startswith("\t"):
            if current is not None:
                command = one_line(line).lstrip("@-+ ").strip()
                if command and not command.startswith("#"):
                    current.append(command)
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        current = None
        match = _MAKE_RULE.match(line)
        if match is None or "=" in match.group(1) or line.lstrip() != line:
            continue
        names = [n for n in match.group(1).split() if not n.startswith(".") and "%" not in n]
        rest = match.group(2).split(";", 1)
        if "=" in rest[0].split("#")[0]:  # a target-specific variable, not a rule
            continue
        deps = [d for d in rest[0].split("#")[0].split() if "$" not in d and "%" not in d]
        commands = [one_line(rest[1])] if len(rest) > 1 and rest[1].strip() else []
        if not names:
            continue
        current = commands
        for name in names:
            yield name, deps, commands  # the same lists: later recipe lines land in each


_JUST_RECIPE: Final = re.compile(r"^@?([A-Za-z0-9_\-]+)((?:\s+[^:=]*?)?)\s*:(?!=)\s*(.*)$")


def _just(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    lines: list[str] | None = None
    for line in _logical_lines(text):
        if line[:1] in (" ", "\t"):
            if lines is not None and line.strip() and not line.strip().startswith("#"):
                lines.append(one_line(line).lstrip("@-").strip())
            continue
        lines = None
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "[", "set ", "alias ", "export ", "import ")):
            continue
        match = _JUST_RECIPE.match(stripped)
        if match is None or ":=" in stripped.split(":", 1)[0]:
            continue
        deps = [d for d in match.group(3).split() if re.fullmatch(r"[A-Za-z0-9_\-]+", d)]
        lines = []
        yield match.group(1), deps, lines


def _npm(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return
    for name, command in scripts.items():
        if isinstance(command, str) and command.strip():
            yield name, [], [one_line(command)]


def _tox(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return
    base = _tox_commands(parser, "testenv")
    envlist = parser.get("tox", "envlist", fallback="")
    for env in re.split(r"[\s,]+", envlist.strip()):
        if env and not parser.has_section(f"testenv:{env}") and base:
            yield env, [], base
    for section in parser.sections():
        if section.startswith("testenv:"):
            commands = _tox_commands(parser, section) or base
            if commands:
                yield section.split(":", 1)[1], [], commands


def _tox_commands(parser: configparser.ConfigParser, section: str) -> list[str]:
    raw = parser.get(section, "commands", fallback="")
    return [one_line(c) for c in raw.split("\n") if c.strip() and not c.strip().startswith("#")]


def _nox(text: str) -> Iterator[tuple[str, list[str], list[str]]]:
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
        yield name, [], [c for c in commands if c]


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
        return node.value
    if isinstance(node, ast.Starred):
        return "…"
    return "…"
