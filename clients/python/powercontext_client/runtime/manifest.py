"""The runtime manifest: which memory belongs to which repository, and what was processed.

The server knows only artifact ids, so which repository a memory belongs to is the runtime's
to keep (docs/agents.md, "The runtime manifest"). One JSON state file maps a repository (its
git root, and its remote for people) to

* the memory artifact id and the endpoint it lives on,
* the last git commit whose changes were processed (bootstrap and sync move it),
* per session, the turns already processed (a Stop hook that fires twice stores one note) and
  the entry of the session's working note (the next turn revises it),

and, apart from those, the endpoint `powercontext setup --endpoint` chose for a repository
that has no memory yet (`preferred_endpoint`).

The file is $POWERCONTEXT_RUNTIME_HOME/runtime.json, else $XDG_STATE_HOME/powercontext/
runtime.json, else ~/.local/state/powercontext/runtime.json. Every change is a read-modify-write
under an exclusive fcntl lock on a sibling lock file, written to a temporary file and renamed
over the old one (os.replace), so concurrent hook processes never lose each other's updates and
a crash never leaves half a file. A repository is recorded only after the first successful
remember: `record_memory` is called with the id the server returned, never before.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..state import state_dir

FILE_NAME: Final = "runtime.json"
FORMAT: Final = 1
# Sessions kept per repository, and turns kept per session: old ones are dropped first, so the
# file stays small (a few KiB) however long the agent has been used.
MAX_SESSIONS: Final = 64
MAX_TURNS: Final = 256


def state_file() -> Path:
    return state_dir() / FILE_NAME


@dataclass
class RepoState:
    """What the runtime knows about one repository (keyed by its git root)."""

    root: str
    memory_id: str
    endpoint: str = ""
    remote: str = ""
    last_processed_commit: str = ""
    # session id -> processed turn keys, oldest first
    sessions: dict[str, list[str]] = field(default_factory=dict)
    # session id -> the entry id of the session's working note
    notes: dict[str, str] = field(default_factory=dict)
    updated_ms: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_id": self.memory_id,
            "endpoint": self.endpoint,
            "remote": self.remote,
            "last_processed_commit": self.last_processed_commit,
            "sessions": self.sessions,
            "notes": self.notes,
            "updated_ms": self.updated_ms,
        }

    @classmethod
    def from_json(cls, root: str, data: dict[str, Any]) -> RepoState:
        sessions = data.get("sessions") or {}
        return cls(
            root=root,
            memory_id=str(data.get("memory_id") or ""),
            endpoint=str(data.get("endpoint") or ""),
            remote=str(data.get("remote") or ""),
            last_processed_commit=str(data.get("last_processed_commit") or ""),
            sessions={
                str(k): [str(t) for t in v] for k, v in sessions.items() if isinstance(v, list)
            },
            notes={str(k): v for k, v in (data.get("notes") or {}).items() if isinstance(v, str)},
            updated_ms=int(data.get("updated_ms") or 0),
        )

    def turn_processed(self, session_id: str, turn: str) -> bool:
        return turn in self.sessions.get(session_id, ())


class RuntimeManifest:
    """The state file; every method is one locked read(-modify-write)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or state_file()
        self._lock_path = self.path.with_name(self.path.name + ".lock")
        self._depth = 0  # locked() is re-entrant within one process

    # -- reading --------------------------------------------------------------------------------

    def repo(self, root: str | Path) -> RepoState | None:
        """The repository's state, or None when no memory was recorded for it."""
        data = self._read()
        entry = data["repos"].get(str(root))
        return RepoState.from_json(str(root), entry) if isinstance(entry, dict) else None

    def repos(self) -> list[RepoState]:
        data = self._read()
        return [RepoState.from_json(k, v) for k, v in sorted(data["repos"].items())]

    def preferred_endpoint(self, root: str | Path) -> str:
        """The endpoint setup chose for the repository ("" when none)."""
        value = self._read().get("endpoints", {}).get(str(root))
        return value if isinstance(value, str) else ""

    # -- writing --------------------------------------------------------------------------------

    def record_memory(
        self, root: str | Path, memory_id: str, *, endpoint: str = "", remote: str = ""
    ) -> RepoState:
        """Map the repository to the memory the server just created (or confirmed)."""
        if not memory_id:
            raise ValueError("record_memory needs the memory id the server returned")

        def change(state: RepoState | None) -> RepoState:
            if state is None or state.memory_id != memory_id:
                state = RepoState(root=str(root), memory_id=memory_id)
            state.endpoint = endpoint or state.endpoint
            state.remote = remote or state.remote
            return state

        return self._update(root, change)

    def record_endpoint(self, root: str | Path, endpoint: str) -> None:
        """The endpoint the repository's memory is (to be) on: used until a memory is
        recorded, and then recorded with it ("" forgets the choice)."""
        with self.locked():
            data = self._read()
            endpoints = data.setdefault("endpoints", {})
            if not isinstance(endpoints, dict):
                endpoints = data["endpoints"] = {}
            if endpoint:
                endpoints[str(root)] = endpoint
            else:
                endpoints.pop(str(root), None)
            self._write(data)

    def record_note(self, root: str | Path, session_id: str, entry_id: str) -> None:
        """The entry of the session's working note (the next turn revises it)."""

        def change(state: RepoState | None) -> RepoState:
            state = _known(root, state)
            state.notes.pop(session_id, None)  # re-inserted last: most recent session
            state.notes[session_id] = entry_id
            while len(state.notes) > MAX_SESSIONS:
                state.notes.pop(next(iter(state.notes)))
            return state

        self._update(root, change)

    def record_commit(self, root: str | Path, commit: str) -> RepoState:
        """The newest commit whose changes the memory has seen."""

        def change(state: RepoState | None) -> RepoState:
            state = _known(root, state)
            state.last_processed_commit = commit
            return state

        return self._update(root, change)

    def mark_turn(self, root: str | Path, session_id: str, turn: str) -> bool:
        """Record a processed turn; False when it was already recorded (by a concurrent hook)."""
        added = False

        def change(state: RepoState | None) -> RepoState:
            nonlocal added
            state = _known(root, state)
            turns = state.sessions.pop(session_id, [])  # re-inserted last: most recent session
            if turn not in turns:
                turns.append(turn)
                added = True
            state.sessions[session_id] = turns[-MAX_TURNS:]
            while len(state.sessions) > MAX_SESSIONS:
                state.sessions.pop(next(iter(state.sessions)))
            return state

        self._update(root, change)
        return added

    @contextlib.contextmanager
    def locked(self, timeout: float = 5.0) -> Iterator[None]:
        """Hold the manifest's lock (e.g. around creating a repository's first memory, so two
        hooks racing on a fresh repository create one memory, not two). Re-entrant: the
        writing methods may be called inside."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self._lock_path, "a+b") as handle:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError as busy:
                    if time.monotonic() >= deadline:
                        raise TimeoutError(f"{self.path} stays locked") from busy
                    time.sleep(0.01)
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    # -- the file -------------------------------------------------------------------------------

    def _update(self, root: str | Path, change: Any) -> RepoState:
        with self.locked():
            data = self._read()
            entry = data["repos"].get(str(root))
            current = RepoState.from_json(str(root), entry) if isinstance(entry, dict) else None
            state: RepoState = change(current)
            state.updated_ms = time.time_ns() // 1_000_000
            data["repos"][str(root)] = state.to_json()
            self._write(data)
            return state

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            data = None
        except (OSError, ValueError):
            data = None  # unreadable: treated as empty, rewritten on the next record
        if not isinstance(data, dict) or not isinstance(data.get("repos"), dict):
            return {"format": FORMAT, "repos": {}}
        return data

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
        fd, tmp = tempfile.mkstemp(prefix=".runtime-", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _known(root: str | Path, state: RepoState | None) -> RepoState:
    if state is None:
        raise LookupError(f"no memory is recorded for {root}: bootstrap it first")
    return state
