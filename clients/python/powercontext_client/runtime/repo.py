"""The repository a working directory belongs to, and the memory the manifest maps it to.

This is the runtime's public lookup (the MCP bridge uses it too):

    found = locate("/path/inside/the/repo")     # None outside a git repository
    found.memory_id                               # "" when nothing was remembered yet
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import git
from .manifest import RepoState, RuntimeManifest


@dataclass(frozen=True)
class Repo:
    root: Path
    state: RepoState | None  # None until the first successful remember
    preferred_endpoint: str = ""  # setup --endpoint, for a repository without a memory yet

    @property
    def memory_id(self) -> str:
        return self.state.memory_id if self.state else ""

    @property
    def endpoint(self) -> str:
        """The endpoint its memory is on, else the one setup chose ("" when neither)."""
        return (self.state.endpoint if self.state else "") or self.preferred_endpoint


def locate(
    cwd: str | Path,
    manifest: RuntimeManifest | None = None,
    *,
    timeout: float = git.TIMEOUT_SECONDS,
) -> Repo | None:
    top = git.root(cwd, timeout=timeout)
    if top is None:
        return None
    manifest = manifest or RuntimeManifest()
    return Repo(top, manifest.repo(top), manifest.preferred_endpoint(top))
