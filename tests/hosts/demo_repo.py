"""The demo repository of the worked example (docs/walkthrough.md), as a committed git
repository: AGENTS.md with its rules, a Hatchling pyproject.toml and a Makefile with `test` and
`check` — the evidence `powercontext bootstrap` reads. The runtime's end-to-end tests
(tests/e2e) start from the same files, with a few lines more of their own.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

AGENTS_MD = """# Working on demo

- This project uses uv to manage dependencies and Hatchling to build.
- Always run `make test` for code changes and `make check` before review.
- Never edit site/: it is generated output.
"""
PYPROJECT = """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.11"
"""
MAKEFILE = """test:
\tuv run pytest

check:
\tuv run ruff check .
\tuv run pytest
"""
APP = "print('hello')\n"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def committed_repo(path: Path, files: dict[str, str]) -> Path:
    """A new git repository at `path` whose first commit holds `files` (name -> text)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    for name, text in files.items():
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial layout")
    return path


def make_repo(path: Path) -> Path:
    """The demo repository at `path` (resolved: the runtime records repositories that way)."""
    files = {"AGENTS.md": AGENTS_MD, "pyproject.toml": PYPROJECT, "Makefile": MAKEFILE}
    return committed_repo(path, {**files, "app.py": APP}).resolve()
