"""Source conventions the runtime writes and the pipeline reads (README "Candidate pipeline").

- File: kind "file", uri "repo://<path relative to the repository root>", the file's bytes
  (UTF-8). The adapter is chosen by the uri's file name (FILE_ADAPTERS, case-insensitive).
- Git change: kind "git_change", media type GIT_CHANGE_MEDIA_TYPE, JSON
  {"base": sha | null, "head": sha, "paths": [...], "patch": "...", "truncated": bool}.
- Task outcome: kind "task_outcome", media type TASK_OUTCOME_MEDIA_TYPE, JSON
  {"host", "session_id", "turn_id", "report", "git_head", "changed_paths": [...],
   "verification": [{"command", "result"}]}, every field optional.
- User note: kind "user_note", text/plain UTF-8: the user's own words.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Final

from ..domain.models import Source

FILE_KIND: Final = "file"
REPO_URI_PREFIX: Final = "repo://"
GIT_CHANGE_KIND: Final = "git_change"
GIT_CHANGE_MEDIA_TYPE: Final = "application/vnd.powercontext.git-change+json"
TASK_OUTCOME_KIND: Final = "task_outcome"
TASK_OUTCOME_MEDIA_TYPE: Final = "application/vnd.powercontext.task-outcome+json"
USER_NOTE_KIND: Final = "user_note"
USER_NOTE_MEDIA_TYPE: Final = "text/plain; charset=utf-8"

PYPROJECT: Final = "pyproject"
BUILD_TARGETS: Final = "build-targets"
AGENT_RULES: Final = "agent-rules"
GIT_CHANGE: Final = "git-change"
TASK_OUTCOME: Final = "task-outcome"
USER_NOTE: Final = "user-note"

# File name (lowercased) -> (adapter, format). Formats pick the parser inside an adapter.
FILE_ADAPTERS: Final[dict[str, tuple[str, str]]] = {
    "pyproject.toml": (PYPROJECT, "pyproject"),
    "makefile": (BUILD_TARGETS, "make"),
    "gnumakefile": (BUILD_TARGETS, "make"),
    "justfile": (BUILD_TARGETS, "just"),
    ".justfile": (BUILD_TARGETS, "just"),
    "package.json": (BUILD_TARGETS, "npm"),
    "tox.ini": (BUILD_TARGETS, "tox"),
    "noxfile.py": (BUILD_TARGETS, "nox"),
    ".pre-commit-config.yaml": (BUILD_TARGETS, "pre-commit"),
    "agents.md": (AGENT_RULES, "markdown"),
    "claude.md": (AGENT_RULES, "markdown"),
    "contributing.md": (AGENT_RULES, "markdown"),
}

# Bounds on what an adapter reads of one source (sources may be up to 8 MiB).
MAX_FILE_CHARS: Final = 256 * 1024


def repo_path(source: Source) -> str | None:
    """The repository path of a file source ("repo://docs/AGENTS.md" -> "docs/AGENTS.md")."""
    if source.kind != FILE_KIND or not source.uri.startswith(REPO_URI_PREFIX):
        return None
    return source.uri[len(REPO_URI_PREFIX) :]


def file_format(source: Source) -> tuple[str, str] | None:
    """(adapter, format) for a file source whose name an adapter knows, else None."""
    path = repo_path(source)
    if path is None:
        return None
    return FILE_ADAPTERS.get(path.rsplit("/", 1)[-1].lower())


def text_of(source: Source, limit: int = MAX_FILE_CHARS) -> str | None:
    """The content as text (None when it is not UTF-8), at most `limit` characters."""
    try:
        text = source.content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text[:limit].replace("\r\n", "\n")


def json_object(source: Source) -> dict[str, Any] | None:
    text = text_of(source)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True)
class GitChange:
    base: str | None
    head: str
    paths: tuple[str, ...]
    patch: str
    truncated: bool


def is_git_change(source: Source) -> bool:
    return source.kind == GIT_CHANGE_KIND


def git_change(source: Source) -> GitChange | None:
    data = json_object(source) if is_git_change(source) else None
    if data is None:
        return None
    paths = data.get("paths")
    base = data.get("base")
    return GitChange(
        base if isinstance(base, str) else None,
        str(data.get("head") or ""),
        tuple(p for p in paths if isinstance(p, str)) if isinstance(paths, list) else (),
        str(data.get("patch") or ""),
        bool(data.get("truncated")),
    )
