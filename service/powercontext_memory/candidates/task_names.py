"""What a task's name says about it: the words that make a task worth an agent's knowing
(build, test, lint ...), the words that make it a maintainer's chore (release, clean), and the
words that make it another caller's (a CI service's, or a helper fed files: `format:files`).

A name is read in parts split at `-_:./` (`docs-test` is "docs" and "test"). Words of a
whole-name kind count only as the entire name: `up` brings the project's services up, while
`kafka-up` starts one of them.
"""

from __future__ import annotations

import re
from typing import Final

RELEVANT: Final = frozenset(
    {
        "build", "test", "tests", "testing", "lint", "linter", "linters", "linting", "check",
        "checks", "docs", "doc", "format", "formatter", "formatting", "fmt", "typecheck",
        "typechecking", "types", "typing", "mypy", "pyright", "ci", "coverage", "cov", "cover",
        "verify", "bench", "benchmark", "benchmarks", "e2e", "unit", "integration", "style",
        "validate", "all", "default", "dist", "package", "serve", "dev", "install", "setup",
        "sync", "init", "fix", "qa", "black", "ruff", "isort", "flake8", "pylint", "prettier",
        "eslint", "pytest",
    }
)  # fmt: skip
# Alone they start what the project runs on (`just up`: its containers, `npm start`: the app).
WHOLE_NAME: Final = frozenset({"up", "start"})
# Publishing is a maintainer's release process, not a task for an agent: never selected.
RELEASE: Final = frozenset({"deploy", "publish", "release", "upload"})
# Wiping generated state is a chore a rules file must ask for before an agent needs it.
HOUSEKEEPING: Final = frozenset({"clean", "distclean", "clobber", "purge", "reset", "erase"})
# A task named after a CI service runs on that service's machine (`github_actions_tests`).
CI_SERVICE: Final = frozenset({"github", "gha", "travis", "circleci", "gitlab", "jenkins"})
# A helper that takes the files to work on as arguments (`format:files`, `lint-staged`), for an
# editor or a commit hook to call: run without them it has nothing to do.
FILE_ARGUMENTS: Final = frozenset({"files", "staged"})
_PYTHON_ENV: Final = re.compile(r"(?:py|pypy)\d[\d.]{0,4}")
_SEPARATORS: Final = re.compile(r"[-_:./]")


def parts(name: str) -> list[str]:
    """The lowercased words of a task name (`docs-test` -> ["docs", "test"])."""
    return _SEPARATORS.split(name.lower())


def relevant(name: str) -> bool:
    """A build/test/lint/docs... task; tox's `py312`-style environments run the tests."""
    lowered = name.lower()
    return not publishes(name) and (
        bool(_PYTHON_ENV.fullmatch(lowered))
        or lowered in WHOLE_NAME
        or any(part in RELEVANT for part in parts(name))
    )


def publishes(name: str) -> bool:
    """A deploy/publish/release task (`deploy-docs`)."""
    return any(part in RELEASE for part in parts(name))


_RELEASE_TITLE: Final = re.compile(r"\b(?:publish|releas|deploy|upload)\w*", re.IGNORECASE)


def release_section(title: str) -> bool:
    """A file section about releasing ("Publishing to PyPI", "Release"): its tasks release."""
    return bool(_RELEASE_TITLE.search(title))


def housekeeping(name: str) -> bool:
    """A task that wipes generated state (`clean`, `coverage-reset`)."""
    return any(part in HOUSEKEEPING for part in parts(name))


def for_another_caller(name: str) -> bool:
    """A task for a CI machine or a helper fed the files to work on (CI_SERVICE,
    FILE_ARGUMENTS)."""
    return any(part in CI_SERVICE or part in FILE_ARGUMENTS for part in parts(name))


def is_compound(name: str) -> bool:
    """A name of more than one word (`tests-parallel`); a single word names a task of its own."""
    return len(parts(name)) > 1
