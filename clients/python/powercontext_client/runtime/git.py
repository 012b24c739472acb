"""What the runtime asks git: the repository root and remote, HEAD, the commits and paths
since a commit, a bounded patch, the working tree's changed paths.

Every call is a `git` subprocess with a timeout; a directory outside any repository (or no git
at all) is not an error for the runtime: `root()` returns None and the hooks do nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Final

TIMEOUT_SECONDS: Final = 5.0


class GitError(RuntimeError):
    pass


def _git(cwd: str | Path, *args: str, timeout: float = TIMEOUT_SECONDS) -> str:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise GitError(f"git {' '.join(args)}: {error}") from error
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git {' '.join(args)}: {message}")
    return done.stdout.decode("utf-8", "replace")


def root(cwd: str | Path, *, timeout: float = TIMEOUT_SECONDS) -> Path | None:
    """The top of the working tree containing `cwd`, or None."""
    try:
        return Path(_git(cwd, "rev-parse", "--show-toplevel", timeout=timeout).strip()).resolve()
    except (GitError, FileNotFoundError, NotADirectoryError):
        return None


def remote(repo: Path, *, timeout: float = TIMEOUT_SECONDS) -> str:
    """The URL of `origin` (or of the first remote), "" when there is none."""
    try:
        names = _git(repo, "remote", timeout=timeout).split()
        if not names:
            return ""
        name = "origin" if "origin" in names else names[0]
        return _git(repo, "remote", "get-url", name, timeout=timeout).strip()
    except GitError:
        return ""


def head(repo: Path, *, timeout: float = TIMEOUT_SECONDS) -> str:
    """HEAD's commit id, "" in a repository without commits."""
    try:
        return _git(repo, "rev-parse", "--verify", "-q", "HEAD", timeout=timeout).strip()
    except GitError:
        return ""


def commit_exists(repo: Path, commit: str) -> bool:
    try:
        _git(repo, "cat-file", "-e", f"{commit}^{{commit}}")
        return True
    except GitError:
        return False


def changed_paths_between(repo: Path, base: str | None, target: str) -> list[str]:
    """Paths touched by the commits in (base, target]; every path of target when base is None."""
    if base:
        out = _git(repo, "diff", "--name-only", "--no-renames", base, target, "--")
    else:
        out = _git(repo, "ls-tree", "-r", "--name-only", target)
    return sorted({line for line in out.splitlines() if line})


def patch_between(
    repo: Path, base: str, target: str, paths: list[str], limit: int
) -> tuple[str, bool]:
    """The unified diff of `paths` over (base, target], at most `limit` UTF-8 bytes (cut at a
    line end); True when it was cut."""
    text = _git(repo, "diff", "--no-color", "--no-renames", base, target, "--", *paths)
    return bound_text(text, limit)


def bound_text(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    cut = data[:limit]
    newline = cut.rfind(b"\n")
    cut = cut[: newline + 1] if newline >= 0 else b""
    return cut.decode("utf-8", "ignore"), True


def show_file(repo: Path, commit: str, path: str, limit: int) -> bytes | None:
    """A file's bytes at `commit` (None when absent there, or larger than `limit`)."""
    try:
        size = int(_git(repo, "cat-file", "-s", f"{commit}:{path}").strip())
    except (GitError, ValueError):
        return None
    if size > limit:
        return None
    try:
        done = subprocess.run(
            ["git", "cat-file", "blob", f"{commit}:{path}"],
            cwd=repo,
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout


def working_changes(repo: Path, *, timeout: float = TIMEOUT_SECONDS) -> list[str]:
    """Paths with uncommitted changes (staged, unstaged, untracked), sorted."""
    out = _git(repo, "status", "--porcelain=v1", "-z", "--untracked-files=normal", timeout=timeout)
    paths: set[str] = set()
    records = out.split("\0")
    index = 0
    while index < len(records):
        record = records[index]
        index += 1
        if len(record) < 4:
            continue
        status, path = record[:2], record[3:]
        paths.add(path)
        if "R" in status or "C" in status:
            index += 1  # the rename's source path follows as its own record
    return sorted(paths)
