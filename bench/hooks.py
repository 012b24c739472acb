"""Agent hooks: the wall time of `powercontext hook claude` as a host runs it — a new process,
its imports, git, the manifest, PrepareContext — on a 1,000-entry memory, and what dominates.

Targets (docs/agents.md, "Hook speed"): UserPromptSubmit p50 <= 200 ms, SessionStart p50 <=
250 ms. The prompt is a task (no explicit instruction), so UserPromptSubmit is one
PrepareContext with the prompt as query. The breakdown runs the same interpreter with nothing
(`python -c pass`), importing the CLI, and the hook outside any git repository (no git root, no
call). Part of `make bench` with the client figures (skip: --no-clients).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import memory_service_pb2_grpc as pb_grpc
from powercontext.memory.v1 import types_pb2 as types

from .corpus import Corpus
from .report import Figure, figure

RUNS = 30
SIZE = 1000
KINDS = ["constraint"] * 5 + ["preference"] * 3 + ["working_note"] * 5 + ["fact"] * 87
SCRIPT = str(Path(sys.executable).parent / "powercontext")


def _wall(command: list[str], stdin: str, env: dict[str, str], cwd: str) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, cwd=cwd)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr}")
    return elapsed


def _samples(command: list[str], stdin: str, env: dict[str, str], cwd: str) -> list[float]:
    _wall(command, stdin, env, cwd)  # warm the page cache
    return [_wall(command, stdin, env, cwd) for _ in range(RUNS)]


async def run_hooks(stub: pb_grpc.MemoryServiceStub, corpus: Corpus, port: int) -> list[Figure]:
    memory: types.ArtifactRef | None = None
    entries = [
        types.EntryInput(kind=KINDS[i % len(KINDS)], text=corpus.sentence()) for i in range(SIZE)
    ]
    memory = (
        await stub.Remember(pb.RememberRequest(entries=entries, mode=pb.REMEMBER_MODE_APPEND))
    ).memory
    with tempfile.TemporaryDirectory(prefix="pc-hooks-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        state = Path(tmp) / "state"
        state.mkdir()
        recorded = {"memory_id": memory.artifact_id, "endpoint": f"127.0.0.1:{port}"}
        (state / "runtime.json").write_text(
            json.dumps({"format": 1, "repos": {str(repo.resolve()): recorded}})
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("POWERCONTEXT_") and "proxy" not in k.lower()
        }
        env["POWERCONTEXT_RUNTIME_HOME"] = str(state)
        base = {"session_id": "bench", "transcript_path": None, "cwd": str(repo)}
        start = json.dumps({**base, "hook_event_name": "SessionStart", "source": "startup"})
        prompt = json.dumps(
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": corpus.queries(1)[0]}
        )
        check = subprocess.run(
            [SCRIPT, "hook", "claude"], input=start, capture_output=True, text=True, env=env
        )
        if "additionalContext" not in check.stdout:
            raise RuntimeError(f"the SessionStart hook gave no context: {check.stderr}")
        hook = [SCRIPT, "hook", "claude"]
        outside = json.dumps({**base, "cwd": tmp, "hook_event_name": "SessionStart"})
        python = _samples([sys.executable, "-c", "pass"], "", env, tmp)
        imports = _samples(
            [sys.executable, "-c", "import powercontext_client.cli.runtime"], "", env, tmp
        )
        no_call = _samples(hook, outside, env, tmp)
        session = _samples(hook, start, env, tmp)
        user = _samples(hook, prompt, env, tmp)
    median = sorted(python)[len(python) // 2]
    return [
        figure("hook UserPromptSubmit (process, 1k entries)", user, 200.0),
        figure("hook SessionStart (process, 1k entries)", session, 250.0),
        figure("  of which: python start", python, None),
        figure("  of which: + the hook's imports", imports, None, f"python start {median:.0f} ms"),
        figure("  of which: hook, no repository", no_call, None, "imports + payload, no git/RPC"),
    ]
