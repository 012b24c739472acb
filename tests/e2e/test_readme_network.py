"""The "Running on a network" example of docs/network-and-auth.md, run as written: certificates,
tokens, a server on 0.0.0.0 with TLS, the clients, revocation.

Every ```bash block of the section runs, in order, as one `bash -euo pipefail` script in a
fresh directory (the repository's `.venv` linked in), stdout and stderr together, with every
`50051` replaced by a free port. The `serve` block runs in the background, as in "another
terminal", until the script ends. A bash block followed by a plain ``` block must print exactly
that, where ids (16 hex digits), times and `…` may differ.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.doc_blocks import (
    ROOT,
    Shown,
    bash_with_output,
    marked_script,
    run_bash,
    section,
    split_marked,
)

from ..doc_blocks import STOP_SERVER, in_background, reserved_port
from ..serving import server_env

DOC = "docs/network-and-auth.md"
SERVE = "powercontext-memory serve"
LABEL = "network"
# What differs between runs: ids, times, and what the documentation elides with `…`.
VARYING = re.compile(r"[0-9a-f]{16}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|…")
SCRIPT_TIMEOUT = 180.0


def build_script(steps: list[Shown], port: int) -> str:
    bodies = []
    for step in steps:
        body = step.script.replace("50051", str(port))
        bodies.append(in_background(body) if SERVE in body else body)
    return marked_script(bodies, LABEL, prelude=STOP_SERVER)


def matches(expected: str, actual: str) -> bool:
    pattern, at = "", 0
    for found in VARYING.finditer(expected):
        text = found.group()
        pattern += re.escape(expected[at : found.start()])
        if text == "…":
            pattern += ".*?"
        elif text.endswith("Z"):
            pattern += r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"
        else:
            pattern += "[0-9a-f]{16}"
        at = found.end()
    pattern += re.escape(expected[at:])
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


def run_example(doc: str, workdir: Path) -> tuple[list[Shown], list[str], str]:
    """Run the section's blocks; (steps, each step's output, the server's log)."""
    steps = bash_with_output(section(doc, LABEL))
    assert sum(SERVE in s.script for s in steps) == 1, "one serve block"
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    with reserved_port() as port:  # held until the script's server has come and gone
        done = run_bash(
            build_script(steps, port),
            workdir / "network.sh",
            cwd=workdir,
            env=server_env(),
            timeout=SCRIPT_TIMEOUT,
            merge_stderr=True,
        )
    log = (workdir / "serve.log").read_text(encoding="utf-8")
    assert done.returncode == 0, f"the example failed:\n{done.stdout}\n--- server\n{log}"
    return steps, split_marked(done.stdout, LABEL, len(steps)), log


def check(doc: str, workdir: Path) -> None:
    steps, outputs, log = run_example(doc, workdir)
    for step, output in zip(steps, outputs, strict=True):
        if step.expected is not None:
            assert matches(step.expected, output), (
                f"{step.script}\n--- {doc} shows\n{step.expected}--- it printed\n{output}"
            )
    assert "authentication: bearer tokens" in log
    assert "pcm_" not in log and "pcm_" not in "".join(outputs[2:])  # never logged or echoed


def test_the_network_example_runs_as_written(tmp_path: Path) -> None:
    check(DOC, tmp_path)


def test_the_output_comparison_can_fail() -> None:
    shown = "created token 5c0f9e2d7a41b3e8 at 2026-01-05T09:12:44Z: mem_art_…@1\n"
    assert matches(shown, "created token 0123456789abcdef at 2031-11-30T23:59:01Z: mem_art_x@1\n")
    assert not matches(shown, "created token 0123456789abcdef at 2031-11-30: mem_art_x@1\n")
    assert not matches(shown, "revoked token 0123456789abcdef at 2031-11-30T23:59:01Z: x@1\n")
