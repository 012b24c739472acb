"""Which memory a tool works on when the call does not name one: the memory the runtime
manifest records for the git repository that holds the bridge's directory (its working
directory, or `powercontext mcp --directory`).

The lookup is the runtime's own (runtime/git.py, runtime/repo.py, runtime/manifest.py), so a memory
made by `powercontext bootstrap` or a hook is the memory the MCP tools use, and a memory that
`remember` creates here is the one the hooks then use.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..runtime import git
from ..runtime.manifest import RuntimeManifest
from ..runtime.repo import Repo


@dataclass
class Workspace:
    directory: Path
    manifest: RuntimeManifest = field(default_factory=RuntimeManifest)
    # What a memory created here is recorded with (endpoints.Endpoint.recorded_as).
    endpoint: str = ""

    _root: Path | None = field(default=None, init=False, repr=False)

    def root(self) -> Path | None:
        """The git root holding the directory (None outside a repository); asked of git once
        it is found (a git subprocess costs a few milliseconds)."""
        if self._root is None:
            self._root = git.root(self.directory)
        return self._root

    def memory_id(self) -> str | None:
        """The memory recorded for this repository, or None."""
        root = self.root()
        found = None if root is None else Repo(root, self.manifest.repo(root))
        return found.memory_id if found is not None and found.memory_id else None

    @contextmanager
    def creating(self) -> Iterator[None]:
        """Held while a first memory is created and recorded, so a hook or bootstrap racing
        this bridge on a fresh repository makes one memory, not two (the manifest's lock)."""
        with self.manifest.locked():
            yield

    def record(self, root: Path, memory_id: str, endpoint: str) -> None:
        self.manifest.record_memory(root, memory_id, endpoint=endpoint, remote=git.remote(root))
