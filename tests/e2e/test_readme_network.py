"""The README's "Running on a network" example, run as written: certificates, tokens, a server
on 0.0.0.0 with TLS, the clients, revocation.

Every ```bash block of the section runs, in order, as one `bash -euo pipefail` script in a
fresh directory (the repository's `.venv` linked in), stdout and stderr together, with every
`50051` replaced by a free port. The `serve` block runs in the background, as in "another
terminal", until the script ends. A bash block followed by a plain ``` block must print exactly
that, where ids (16 hex digits), times and `…` may differ.
"""

from __future__ import annotations

import re
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ..serving import server_env

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
START, END = "<!-- network:start -->", "<!-- network:end -->"
SERVE = "powercontext-memory serve"
MARKER = "@@ network block {} @@"
SPLIT = re.compile(r"^@@ network block (\d+) @@$", re.MULTILINE)
# What differs between runs: ids, times, and what the README elides with `…`.
VARYING = re.compile(r"[0-9a-f]{16}|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|…")
SCRIPT_TIMEOUT = 180.0


@dataclass(frozen=True)
class Step:
    script: str
    expected: str | None  # the output the README shows after it, if any


def section(text: str) -> str:
    assert text.count(START) == 1 and text.count(END) == 1, "the network section markers"
    return text.split(START, 1)[1].split(END, 1)[0]


def steps_of(text: str) -> list[Step]:
    """The bash blocks, each with the plain block that directly follows it (its output)."""
    fenced: list[tuple[str, str]] = []
    language, lines = None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if language is None:
                language, lines = line[3:].strip(), []
            else:
                fenced.append((language, "\n".join(lines) + "\n"))
                language = None
            continue
        lines.append(line)
    steps = []
    for i, (kind, body) in enumerate(fenced):
        if kind == "bash":
            follows = fenced[i + 1] if i + 1 < len(fenced) else None
            steps.append(Step(body, follows[1] if follows and follows[0] == "" else None))
    return steps


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def build_script(steps: list[Step], port: int) -> str:
    parts = [
        # Whatever happens, stop the background server and wait for its graceful exit.
        'trap \'code=$?; if [ -n "${SERVER:-}" ]; then kill "$SERVER"; wait "$SERVER" || true; '
        "fi; exit $code' EXIT"
    ]
    for index, step in enumerate(steps):
        parts.append(f"echo '{MARKER.format(index)}'")
        body = step.script.replace("50051", str(port))
        if SERVE in body:
            body = (
                body.rstrip("\n") + " > serve.log 2>&1 &\n"
                "SERVER=$!\n"
                'until grep -q "^serving " serve.log; do kill -0 "$SERVER"; sleep 0.1; done\n'
            )
        parts.append(body)
    return "\n".join(parts)


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


def run_section(text: str, workdir: Path) -> tuple[list[Step], list[str], str]:
    """Run the section's blocks; (steps, each step's output, the server's log)."""
    steps = steps_of(section(text))
    assert sum(SERVE in s.script for s in steps) == 1, "one serve block"
    (workdir / ".venv").symlink_to(ROOT / ".venv")
    script = workdir / "network.sh"
    script.write_text(build_script(steps, free_port()), encoding="utf-8")
    done = subprocess.run(
        ["bash", "-euo", "pipefail", str(script)],
        cwd=workdir,
        env=server_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=SCRIPT_TIMEOUT,
    )
    log = (workdir / "serve.log").read_text(encoding="utf-8")
    assert done.returncode == 0, f"the example failed:\n{done.stdout}\n--- server\n{log}"
    pieces = SPLIT.split(done.stdout)
    assert [int(i) for i in pieces[1::2]] == list(range(len(steps)))
    return steps, [piece.removeprefix("\n") for piece in pieces[2::2]], log


def check(text: str, workdir: Path) -> None:
    steps, outputs, log = run_section(text, workdir)
    for step, output in zip(steps, outputs, strict=True):
        if step.expected is not None:
            assert matches(step.expected, output), (
                f"{step.script}\n--- the README shows\n{step.expected}--- it printed\n{output}"
            )
    assert "authentication: bearer tokens" in log
    assert "pcm_" not in log and "pcm_" not in "".join(outputs[2:])  # never logged or echoed


def test_the_network_example_runs_as_written(tmp_path: Path) -> None:
    check(README.read_text(encoding="utf-8"), tmp_path)


def test_the_output_comparison_can_fail() -> None:
    shown = "created token 5c0f9e2d7a41b3e8 at 2026-01-05T09:12:44Z: mem_art_…@1\n"
    assert matches(shown, "created token 0123456789abcdef at 2031-11-30T23:59:01Z: mem_art_x@1\n")
    assert not matches(shown, "created token 0123456789abcdef at 2031-11-30: mem_art_x@1\n")
    assert not matches(shown, "revoked token 0123456789abcdef at 2031-11-30T23:59:01Z: x@1\n")
