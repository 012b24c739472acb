"""Instructions without a modal word: a sentence that starts with an imperative verb ("Run …",
"Use …") — after a label ("Async testing: use anyio"), a purpose clause ("To run a single test,
use …"), an introduction ("With the environment activated simply run …", "If you only want some
of the tests run `pip install …`") or a softener ("Please add tests …") — and names a command
or a concrete convention; or a label and a
command ("Format: `uv run ruff format .`"). A noun-phrase label ("**Build System**
(`src/builders/`): …") is no imperative: the verb is looked for after it.
"""

from __future__ import annotations

import re
from typing import Final

from .commands import CODE_SPAN, commands

IMPERATIVE: Final = frozenset(
    {
        "run", "use", "add", "keep", "write", "prefer", "avoid", "do", "don't", "never", "always",
        "ensure", "make", "follow", "install", "update", "document", "wrap", "place", "put",
        "remove", "extract", "include", "check", "create", "set", "call", "catch", "raise",
        "test",
        "format", "lint", "build", "commit", "push", "submit", "branch", "register", "sync",
        "match", "comment", "prefix", "implement", "omit", "eliminate", "simplify", "replace",
        "delete",
        "mark", "pin", "import", "name", "return", "log", "limit", "split", "group", "reuse",
        "store", "read", "execute", "invoke", "regenerate", "generate", "verify", "validate", "fix",
        "bump", "rebase", "squash", "sign", "edit", "modify", "change", "rename", "move", "copy",
        "duplicate", "assign", "export", "activate", "apply", "pass", "skip", "disable", "enable",
        "declare", "define", "annotate", "configure", "leave", "treat", "be", "focus", "consult",
        "refer", "sort", "select", "choose", "specify", "upgrade", "lock", "wait",
    }
)  # fmt: skip
# What makes an imperative concrete when it has no code span: a tool or a code convention.
CONCRETE: Final = re.compile(
    r"\b(?:uv|pip|pytest|ruff|black|mypy|pyright|anyio|asyncio|poetry|hatch|tox|nox|"
    r"pre-commit|docstrings?|type hints?|type checks?|walrus|changelog|pep ?8|f-strings?|"
    r"tests?|comments?|formatters?|linters?|linting)\b",
    re.IGNORECASE,
)
# A label, possibly with a parenthetical ("**Build System** (`src/pdm/builders/`): …").
_LABEL: Final = re.compile(
    r"^\**([A-Za-z][\w /()'-]{0,40}?)\**(?:\s*\([^)]{1,80}\))?\s*:\**\s+(.*)$"
)
_INTRODUCTION: Final = (
    r"(?:to|for|when|if|before|after|once|while|with|in|from|on|inside|within|during|using)\b"
)
_CLAUSE: Final = re.compile(r"^" + _INTRODUCTION + r"[^,]{1,80},\s+(.*)$", re.I)
# Without a comma the introduction ends where a softener or a participle meets the verb:
# "With the environment activated simply run `pre-commit install`".
_PHRASE: Final = re.compile(
    r"^" + _INTRODUCTION + r"(?:\s+[\w'-]+){1,10}?\s+(?:[a-z]+ed|please|simply|just|then|now)"
    r"\s+(.*)$",
    re.I,
)
# An introduction without a comma, ended by the imperative verb of a command: "If you only
# want to run some of the tests run `pip install x[test]`" (not "to run", not "you run").
_INTRODUCED: Final = re.compile(r"^" + _INTRODUCTION, re.I)
_VERB_OF_COMMAND: Final = re.compile(r"(?<=\s)([A-Za-z]+)\s+(?=`)")
_NO_IMPERATIVE_AFTER: Final = frozenset(
    {"to", "you", "we", "i", "they", "it", "he", "she", "will", "would", "can", "could",
     "should", "must", "may", "might", "not", "don't", "also", "then"}
)  # fmt: skip
# Words that soften an imperative without changing it ("Please add tests", "Simply run").
SOFTENERS: Final = frozenset({"please", "simply", "just", "also", "then", "now", "first"})


def imperative(line: str) -> bool:
    """Starts (after a label or a purpose clause) with an imperative verb and names something
    concrete after it."""
    core = line
    label = _LABEL.match(core)
    if label:
        core = label.group(2)
    clause = _CLAUSE.match(core)
    if clause:
        core = clause.group(1)
    else:
        phrase = _PHRASE.match(core)
        core = phrase.group(1) if phrase else _command_after_introduction(core)
    words = core.split(maxsplit=1)
    while len(words) > 1 and words[0].lower().strip("*_,.:") in SOFTENERS:
        words = words[1].split(maxsplit=1)
    if not words:
        return False
    verb = words[0].lower().split("/")[0].strip("*_,.:")
    rest = words[1] if len(words) > 1 else ""
    if verb == "make" and rest.lower().startswith("sure "):
        rest = rest[5:]
    return verb in IMPERATIVE and bool(CODE_SPAN.search(rest) or CONCRETE.search(rest))


def _command_after_introduction(line: str) -> str:
    """From the imperative verb of a command on, when an introduction without a comma leads up
    to it ("If you only want some of the tests run `pip install x[test]`"); else the line."""
    if not _INTRODUCED.match(line):
        return line
    for verb in _VERB_OF_COMMAND.finditer(line):
        before = line[: verb.start()].split()
        if verb.group(1).lower() in IMPERATIVE and before[-1].lower() not in _NO_IMPERATIVE_AFTER:
            return line[verb.start() :]
    return line


def labelled_command(line: str) -> bool:
    """A short label, then a command in a code span ("Format: `uv run ruff format .`")."""
    label = _LABEL.match(line)
    value = label.group(2) if label else ""
    return value.startswith("`") and bool(commands(value))
