"""`make test`'s run: the OceanBase half of pytest, the container image's build and run, the rest
of pytest (tests/e2e, and the others) and the Node client's tests, side by side (each mostly
waits on servers, seekdb, host CLIs or the image build), each one's output shown whole as it ends.

Usage: python scripts/run_tests.py [PYTEST ARGS...] (extra arguments go to every pytest run).
Exits 1 when any of them failed.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
REST = "not oceanbase and not container"
E2E = f"{REST} and e2e and not slow"
OTHERS = f"{REST} and (not e2e or slow)"
SCRIPTS = Path(sys.executable).parent
FAILURE_TAIL_LINES = 60  # a failed run's summary: pytest's short summary, node's failing tests


@dataclass
class Run:
    name: str
    process: subprocess.Popen[bytes]
    output: IO[bytes]
    started: float


def suites(pytest_args: list[str]) -> list[tuple[str, list[str], Path, dict[str, str]]]:
    pytest = [sys.executable, "-m", "pytest", "-q", *pytest_args]
    node_env = {**os.environ, "POWERCONTEXT_SERVER_COMMAND": str(SCRIPTS / "powercontext-memory")}
    return [
        ("pytest -m oceanbase", [*pytest, "-m", "oceanbase"], ROOT, dict(os.environ)),
        ("pytest -m container", [*pytest, "-m", "container"], ROOT, dict(os.environ)),
        # The rest in two runs of about the same length: tests/e2e but its slow files (wheel
        # installs, seekdb starts), and everything else.
        (f'pytest -m "{E2E}"', [*pytest, "-m", E2E], ROOT, dict(os.environ)),
        (f'pytest -m "{OTHERS}"', [*pytest, "-m", OTHERS], ROOT, dict(os.environ)),
        ("npm test (clients/node)", ["npm", "test"], ROOT / "clients" / "node", node_env),
    ]


def main(pytest_args: list[str]) -> int:
    failed: list[tuple[str, bytes]] = []
    with contextlib.ExitStack() as stack:
        runs = []
        for name, command, cwd, env in suites(pytest_args):
            output = stack.enter_context(tempfile.TemporaryFile())
            process = subprocess.Popen(command, cwd=cwd, env=env, stdout=output, stderr=output)
            stack.callback(_stop, process)  # Ctrl-C or a crash here must not leave it running
            runs.append(Run(name, process, output, time.monotonic()))
        while runs:
            for run in [r for r in runs if r.process.poll() is not None]:
                runs.remove(run)
                seconds = time.monotonic() - run.started
                code = run.process.returncode
                print(f"--- {run.name}: exit {code} after {seconds:.0f} s", flush=True)
                run.output.seek(0)
                text = run.output.read()
                sys.stdout.buffer.write(text)
                sys.stdout.flush()
                if code != 0:
                    failed.append((run.name, text))
            time.sleep(0.2)
    if failed:
        # Again at the very end, where a CI log shown from its tail puts the reason in view.
        for name, text in failed:
            print(f"--- FAILED: {name}; its last lines:", flush=True)
            sys.stdout.buffer.write(b"\n".join(text.splitlines()[-FAILURE_TAIL_LINES:]) + b"\n")
        sys.stdout.flush()
        print(f"--- FAILED: {', '.join(name for name, _ in failed)}", flush=True)
        return 1
    return 0


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
