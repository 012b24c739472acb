"""The README's client sections, run as written against a real server process: the Python
example (its printed output compared with the README's) and the CLI blocks as one bash script."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..serving import Served, serve_process, server_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DEFAULT_ENDPOINT = "127.0.0.1:50051"


def section(name: str) -> str:
    text = README.read_text(encoding="utf-8")
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1, name
    return text.split(start, 1)[1].split(end, 1)[0]


def blocks(text: str, language: str) -> list[str]:
    """The fenced blocks of `language` ("" = no language), fences paired in order."""
    found, current, inside = [], [], None
    for line in text.splitlines():
        if line.startswith("```"):
            if inside is None:
                inside, current = line[3:].strip(), []
                continue
            if inside == language:
                found.append("\n".join(current) + "\n")
            inside = None
            continue
        current.append(line)
    return found


def matches(expected: str, actual: str) -> bool:
    """`…` in the README stands for any ids."""
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, actual) is not None


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Served:
    database = tmp_path_factory.mktemp("readme") / "memory.sqlite3"
    # As `make serve` runs it: a new database gets the default (multilingual) model.
    with serve_process(database, "--embedding", "auto") as running:
        yield running  # type: ignore[misc]


def test_python_client_example_prints_what_the_readme_says(served: Served, tmp_path: Path) -> None:
    text = section("python-client")
    (example,) = blocks(text, "python")
    (printed,) = blocks(text, "")
    script = example.replace(DEFAULT_ENDPOINT, f"127.0.0.1:{served.port}")
    assert script != example
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=server_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines, expected = done.stdout.splitlines(), printed.splitlines()
    assert len(lines) == len(expected), done.stdout
    for line, want in zip(lines, expected, strict=True):
        assert matches(want, line), (want, line)


def test_cli_blocks_run_as_one_script(served: Served, tmp_path: Path) -> None:
    text = section("cli")
    commands, shown, more = blocks(text, "bash")[0], blocks(text, "")[0], blocks(text, "bash")[1]
    script = (
        "\n".join([commands, more])
        .replace(
            f"POWERCONTEXT_ENDPOINT={DEFAULT_ENDPOINT}",
            f"POWERCONTEXT_ENDPOINT=127.0.0.1:{served.port}",
        )
        .replace("/tmp/AGENTS.md", str(tmp_path / "AGENTS.md"))
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=server_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.startswith("SERVING\n")
    search = shown.splitlines()
    assert search[0].split("(")[0] in out, out
    at = out.index(search[0].split("(")[0])  # the search output, as shown in the README
    for want, line in zip(search, out[at:].splitlines(), strict=False):
        assert matches(want, line), (want, line)
    assert "  revise     mem_ent_" in out and "(user_correction)" in out
    assert "  deactivate mem_ent_" in out and "  reactivate mem_ent_" in out
    assert out.rstrip().endswith("exit code 4")
    assert "error: REVISION_CONFLICT (ABORTED)" in done.stderr
