"""The Sources the runtime stores, in the conventions the server's candidate adapters read.

* file: uri repo://<path from the repository root>, a media type by file name, the bytes;
* git_change: application/vnd.powercontext.git-change+json, {"base", "head", "paths",
  "patch", "truncated"} (base null when there is no earlier commit to diff against);
* task_outcome: application/vnd.powercontext.task-outcome+json, {"host", "session_id",
  "turn_id", "report", "git_head", "changed_paths", "verification": [{"command", "result"}],
  "note_entry_id" (the session's working note, when it has one)};
* user_note: text/plain, the user's own words.

Reads are bounded (docs/bootstrap.md: only the bounded Sources the operating contract needs,
never a scan of the code). No metadata is attached, so the same bytes are always the same
Source: running bootstrap twice sends the very same evidence, and the server answers with no
change. JSON is written with sorted keys for the same reason.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

# The files bootstrap reads and sync re-reads when a commit touches them (the operating
# contract of a repository), in the order they are sent.
EVIDENCE_FILES: Final = (
    "AGENTS.md",
    "CLAUDE.md",
    "CONTRIBUTING.md",
    "pyproject.toml",
    "Makefile",
    "justfile",
    "Justfile",
    "package.json",
    "tox.ini",
    "noxfile.py",
    ".pre-commit-config.yaml",
)
MAX_FILE_BYTES: Final = 256 * 1024  # a bigger file is skipped, not cut (a cut file lies)
MAX_PATCH_BYTES: Final = 64 * 1024  # cut at a line end; "truncated" says so
MAX_REPORT_BYTES: Final = 16 * 1024
MAX_NOTE_BYTES: Final = 8 * 1024
MAX_PATHS: Final = 200

KIND_FILE: Final = "file"
KIND_GIT_CHANGE: Final = "git_change"
KIND_TASK_OUTCOME: Final = "task_outcome"
KIND_USER_NOTE: Final = "user_note"
MEDIA_GIT_CHANGE: Final = "application/vnd.powercontext.git-change+json"
MEDIA_TASK_OUTCOME: Final = "application/vnd.powercontext.task-outcome+json"
MEDIA_TEXT: Final = "text/plain"

_MEDIA_BY_NAME: Final = {
    "pyproject.toml": "application/toml",
    "package.json": "application/json",
    "Makefile": "text/x-makefile",
    "justfile": "text/x-just",
    "Justfile": "text/x-just",
    "tox.ini": "text/plain",
    "noxfile.py": "text/x-python",
    ".pre-commit-config.yaml": "application/yaml",
}


@dataclass(frozen=True)
class SourceInput:
    """One PutSource: what to store, and how the adapters recognise it."""

    kind: str
    uri: str
    media_type: str
    content: bytes


def is_evidence_path(path: str) -> bool:
    """A repository path bootstrap would read (only at the root: nested copies are not the
    repository's contract)."""
    return path in EVIDENCE_FILES


def media_type(name: str) -> str:
    if name.endswith(".md"):
        return "text/markdown"
    return _MEDIA_BY_NAME.get(name, "text/plain")


def file_source(relative: str, content: bytes) -> SourceInput:
    return SourceInput(KIND_FILE, f"repo://{relative}", media_type(Path(relative).name), content)


def read_evidence(repo: Path) -> list[SourceInput]:
    """The evidence files present at the repository root, each at most MAX_FILE_BYTES."""
    found = []
    for name in EVIDENCE_FILES:
        path = repo / name
        try:
            if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            found.append(file_source(name, path.read_bytes()))
        except OSError:
            continue
    return found


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def git_change_source(
    base: str | None, head: str, paths: Sequence[str], patch: str, truncated: bool
) -> SourceInput:
    content = {
        "base": base,
        "head": head,
        "paths": list(paths)[:MAX_PATHS],
        "patch": patch,
        "truncated": truncated or len(paths) > MAX_PATHS,
    }
    return SourceInput(KIND_GIT_CHANGE, f"git://{head}", MEDIA_GIT_CHANGE, _json(content))


def task_outcome_source(
    *,
    host: str,
    session_id: str,
    turn_id: str,
    report: str,
    git_head: str,
    changed_paths: Sequence[str],
    verification: Sequence[dict[str, str]] = (),
    note_entry_id: str = "",
) -> SourceInput:
    """`note_entry_id`: the session's working note so far, which this outcome revises."""
    content: dict[str, object] = {
        "host": host,
        "session_id": session_id,
        "turn_id": turn_id,
        "report": bounded(report, MAX_REPORT_BYTES),
        "git_head": git_head,
        "changed_paths": list(changed_paths)[:MAX_PATHS],
        "verification": list(verification),
    }
    if note_entry_id:
        content["note_entry_id"] = note_entry_id
    uri = f"{host}://{session_id}/{turn_id}"
    return SourceInput(KIND_TASK_OUTCOME, uri, MEDIA_TASK_OUTCOME, _json(content))


def user_note_source(text: str, *, host: str, session_id: str) -> SourceInput:
    return SourceInput(
        KIND_USER_NOTE,
        f"{host}://{session_id}",
        MEDIA_TEXT,
        bounded(text.strip(), MAX_NOTE_BYTES).encode(),
    )


def bounded(text: str, limit: int) -> str:
    """At most `limit` UTF-8 bytes, never cut inside a character."""
    data = text.encode("utf-8")
    return text if len(data) <= limit else data[:limit].decode("utf-8", "ignore")
