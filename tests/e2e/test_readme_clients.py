"""The client examples, run as written against a real server process: the Python example (its
printed output compared with the one shown) and the CLI blocks as one bash script. Both live
twice: in the README's tour and in docs/clients.md; each copy runs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.doc_blocks import ROOT, blocks, elided_match, section

from ..serving import Served, serve_process, server_env

DEFAULT_ENDPOINT = "127.0.0.1:50051"
DOCS = ["README.md", "docs/clients.md"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    database = tmp_path_factory.mktemp("readme") / "memory.sqlite3"
    # As `make serve` runs it: a new database gets the default (multilingual) model.
    with serve_process(database, "--embedding", "auto") as running:
        yield running


@pytest.mark.parametrize("doc", DOCS)
def test_python_client_example_prints_what_it_shows(
    doc: str, served: Served, tmp_path: Path
) -> None:
    text = section(doc, "python-client")
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
        assert elided_match(want, line), (want, line)


@pytest.mark.parametrize("doc", DOCS)
def test_cli_blocks_run_as_one_script(doc: str, served: Served, tmp_path: Path) -> None:
    text = section(doc, "cli")
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
    at = out.index(search[0].split("(")[0])  # the search output, as the documentation shows it
    for want, line in zip(search, out[at:].splitlines(), strict=False):
        assert elided_match(want, line), (want, line)
    assert "  revise     mem_ent_" in out and "(user_correction)" in out
    assert "  deactivate mem_ent_" in out and "  reactivate mem_ent_" in out
    assert out.rstrip().endswith("exit code 4")
    assert "error: REVISION_CONFLICT (ABORTED)" in done.stderr
