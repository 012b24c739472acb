"""A scripted 10-turn agent session through the real hooks: how many working notes it leaves
and how many bytes of context it injects.

The session is what Claude Code sends (tests/data/hooks has the payload shapes): SessionStart,
then per turn UserPromptSubmit and Stop; turns 3 and 7 run two subagents each (a SubagentStop
apiece, their reports), turn 5 is followed by a /compact (PreCompact, the compaction's
SubagentStop carrying its summary, SessionStart source "compact"), and turns 2 and 8 report
what turn 1 reported. Every event is a new `powercontext hook claude` process against one
server, in a bootstrapped repository. Printed: working notes, entry texts that start with a
host key ("Turn report:…"), notes holding the compaction summary, and the bytes of context
injected per event and in all.

    python -m bench.session_notes                 # this checkout
    python -m bench.session_notes --root DIR      # another checkout (e.g. `git worktree add`
                                                  # of an older commit), for before/after
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .server import server_process

ROOT = Path(__file__).resolve().parent.parent
TURNS = 10
SUBAGENT_TURNS = (3, 7)
COMPACT_AFTER = 5
REPEATED_TURNS = (2, 8)
COMPACTION_SUMMARY = (
    "This session is being continued from a previous conversation. Summary: the user asked to "
    "rewrite the parser; tests pass; next is the CLI."
)
AGENTS_MD = (
    "# Rules\n\n- Never edit generated/ by hand.\n- Run `make check` before asking for review.\n"
)


@dataclass
class Result:
    injected: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    entries: int = 0
    seconds: float = 0.0


def _env(root: Path, state: Path, endpoint: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("POWERCONTEXT_") and "proxy" not in k.lower()
    }
    paths = [root / "service", root / "generated", root / "clients" / "python"]
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in paths)
    env["POWERCONTEXT_RUNTIME_HOME"] = str(state)
    env["POWERCONTEXT_ENDPOINT"] = endpoint
    env["POWERCONTEXT_LOCAL_SERVER"] = "off"
    return env


@contextmanager
def _server(root: Path, database: Path, env: dict[str, str]) -> Iterator[str]:
    with server_process(str(database), "--embedding", "none", env=env, cwd=root) as server:
        yield f"127.0.0.1:{server.port}"


def _client(env: dict[str, str], cwd: Path, *args: str, stdin: str = "") -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from powercontext_client.cli import main; raise SystemExit(main())",
         *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{args}: {done.stderr}")
    return done.stdout


def _events(repo: Path) -> Iterator[tuple[str, dict[str, object]]]:
    base = {"session_id": "bench-session", "cwd": str(repo), "transcript_path": None}
    yield "SessionStart", {**base, "source": "startup"}
    for turn in range(1, TURNS + 1):
        yield "UserPromptSubmit", {**base, "prompt": f"Step {turn} of the parser rewrite: go on."}
        if turn in SUBAGENT_TURNS:
            for agent in ("explorer", "tester"):
                report = f"The {agent} looked at step {turn}: nothing blocking."
                yield "SubagentStop", {**base, "agent_id": f"{agent}-{turn}",
                                       "agent_type": agent, "stop_hook_active": False,
                                       "last_assistant_message": report}  # fmt: skip
        same = 1 if turn in REPEATED_TURNS else turn
        report = f"Finished step {same} of the parser rewrite; the tests pass."
        (repo / f"step{turn}.py").write_text(f"STEP = {turn}\n")
        yield "Stop", {**base, "stop_hook_active": False, "last_assistant_message": report}
        if turn == COMPACT_AFTER:
            yield "PreCompact", {**base, "trigger": "manual", "custom_instructions": ""}
            yield "SubagentStop", {**base, "agent_id": "compact", "agent_type": "compact",
                                   "stop_hook_active": False,
                                   "last_assistant_message": COMPACTION_SUMMARY}  # fmt: skip
            yield "SessionStart", {**base, "source": "compact"}


def run(root: Path) -> Result:
    result = Result()
    with tempfile.TemporaryDirectory(prefix="pc-session-") as tmp:
        repo, state = Path(tmp) / "repo", Path(tmp) / "state"
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "AGENTS.md").write_text(AGENTS_MD)
        (repo / "Makefile").write_text("check:\n\truff check .\n\tpytest\n")
        with _server(root, Path(tmp) / "memory.sqlite3", _env(root, state, "")) as endpoint:
            env = _env(root, state, endpoint)
            _client(env, repo, "bootstrap")
            started = time.monotonic()
            for name, payload in _events(repo):
                out = _client(env, repo, "hook", "claude",
                              stdin=json.dumps({**payload, "hook_event_name": name}))  # fmt: skip
                context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
                result.injected.setdefault(name, []).append(len(context.encode()))
            result.seconds = time.monotonic() - started
            manifest = json.loads((state / "runtime.json").read_text())
            memory = manifest["repos"][str(repo)]["memory_id"]
            out = _client(env, repo, "-o", "json", "list", memory, "--text")
            listed = [json.loads(line) for line in out.splitlines() if line.strip()]
    for page in listed:
        for entry in page.get("entries", []):
            result.entries += 1
            if entry.get("kind") == "working_note":
                result.notes.append(str(entry.get("text", "")))
    return result


def report(result: Result) -> None:
    keyed = sum(n.startswith("Turn ") for n in result.notes)
    summaries = sum("continued from a previous conversation" in n for n in result.notes)
    print(f"\nScripted session: {TURNS} turns, subagents on turns {SUBAGENT_TURNS}, /compact "
          f"after turn {COMPACT_AFTER} ({result.seconds:.1f} s of hooks)")  # fmt: skip
    print(
        f"  working notes: {len(result.notes)} (of {result.entries} active entries); "
        f"starting with a host key: {keyed}; holding the compaction summary: {summaries}"
    )
    total = 0
    for event, sizes in result.injected.items():
        total += sum(sizes)
        if any(sizes):
            print(f"  injected by {event}: {len(sizes)} runs, {sum(sizes):,} bytes "
                  f"(mean {sum(sizes) / len(sizes):,.0f}, last {sizes[-1]:,})")  # fmt: skip
    print(f"  injected in all: {total:,} bytes")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.session_notes", description=__doc__)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code runs")
    report(run(parser.parse_args().root.resolve()))


if __name__ == "__main__":
    main()
