"""Claude Code, headless: `claude -p` with stream-json in and out, pointed at the mock model.

One `session()` is one real session in one process: the prompts go in one at a time, each once
the host waits for the user again (the turn's `result`, every subagent it started finished and
the turn a background subagent's end opens answered), the way a user types the next message;
closing stdin ends the session (SessionEnd). "/compact" is sent like any prompt: Claude Code
runs it as the slash command.

How it reaches the mock and nothing else: ANTHROPIC_BASE_URL (the Messages API root),
ANTHROPIC_API_KEY (any value: the mock does not check it), and
CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (no telemetry, error reporting, update checks or
other calls to Anthropic's own hosts).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .hook_runs import read_runs
from .launch import HostRun, ask_version, probed
from .pins import Pin
from .workspace import User

TURN_TIMEOUT = 60.0
EXIT_TIMEOUT = 30.0
# The memory tools need a permission in -p mode, as a user allows them once in a session.
ALLOWED_TOOLS = "mcp__powercontext"
# A memory tool call that hangs fails the test in 10 s instead of the host's default.
MCP_TOOL_TIMEOUT_MS = "10000"


class ClaudeSession(HostRun):
    """One `claude -p` process, all the session's prompts (events: its stream-json output)."""

    @property
    def results(self) -> list[dict[str, Any]]:
        """The `result` events: one per turn (a prompt's, or one the host opened itself)."""
        return [e for e in self.events if e.get("type") == "result"]


class ClaudeCode:
    def __init__(self, pin: Pin, user: User, models_url: str) -> None:
        self.pin = pin
        self.user = user
        self.env = {
            **user.env,
            "ANTHROPIC_BASE_URL": models_url,
            "ANTHROPIC_API_KEY": "mock-key",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "MCP_TOOL_TIMEOUT": MCP_TOOL_TIMEOUT_MS,
        }

    def version(self) -> str:
        done = ask_version(self.pin, self.env)  # "2.1.197 (Claude Code)"
        return done.stdout.split()[0] if done.stdout else done.stderr

    def session(
        self, repo: Path, prompts: list[str], probe_log: Path, env: dict[str, str] | None = None
    ) -> ClaudeSession:
        """`env`: variables set for this session only, over the host's."""
        command = [
            *self.pin.command(),
            "-p",
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            ALLOWED_TOOLS,
        ]
        session = ClaudeSession()
        started = time.monotonic()
        process = subprocess.Popen(
            command,
            cwd=repo,
            env=probed({**self.env, **(env or {})}, probe_log),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        lines = _reader(process.stdout)
        errors: list[str] = []
        threading.Thread(target=_drain, args=(process.stderr, errors), daemon=True).start()
        try:
            for prompt in prompts:
                message = {"type": "user", "message": {"role": "user", "content": prompt}}
                process.stdin.write(json.dumps(message) + "\n")
                process.stdin.flush()
                _until_idle(lines, session.events, prompt)
            process.stdin.close()  # the user leaves: the session ends
            session.returncode = process.wait(timeout=EXIT_TIMEOUT)
            session.events.extend(_rest(lines))
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            session.seconds = time.monotonic() - started
            session.stderr = "".join(errors)
            session.hook_runs = read_runs(probe_log)
        return session


def user_says(text: str) -> Callable[[Any], bool]:
    """A `when` for the requests in which a user-role message holds `text` (a subagent's
    request starts with its task as the user's message)."""
    return lambda body: any(text in t for t in _user_texts(body.get("messages", [])))


def last_user_says(text: str) -> Callable[[Any], bool]:
    """A `when` for the requests whose last user-role message holds `text`."""

    def check(body: Any) -> bool:
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        return bool(users) and any(text in t for t in _user_texts(users[-1:]))

    return check


def _user_texts(messages: list[Any]) -> Iterator[str]:
    for message in messages:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            yield from (b["text"] for b in content if b.get("type") == "text" and "text" in b)


def _reader(stream: IO[str]) -> queue.Queue[str | None]:
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def _drain(stream: IO[str] | None, into: list[str]) -> None:
    if stream is not None:
        into.extend(stream)


def _until_idle(lines: queue.Queue[str | None], events: list[dict[str, Any]], prompt: str) -> None:
    """Read events until the host waits for the user: a `result`, with every subagent it
    started finished and no turn of its own still to come. (A subagent running in the
    background ends with a task_notification, on which Claude Code opens a turn itself.)"""
    started: set[str] = set()
    finished: set[str] = set()
    turn_pending = True
    deadline = time.monotonic() + TURN_TIMEOUT
    while True:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise AssertionError(f"not idle within {TURN_TIMEOUT} s after {prompt!r}") from None
        assert line is not None, f"Claude Code exited before answering {prompt!r}: {events[-3:]}"
        if not line.strip():
            continue
        event = json.loads(line)
        events.append(event)
        subtype = event.get("subtype")
        if event.get("type") == "system" and subtype == "task_started":
            started.add(str(event.get("task_id")))
        elif event.get("type") == "system" and subtype == "task_notification":
            finished.add(str(event.get("task_id")))
            turn_pending = True
        elif event.get("type") == "result":
            turn_pending = False
        if not turn_pending and started <= finished:
            return


def _rest(lines: queue.Queue[str | None]) -> list[dict[str, Any]]:
    rest = []
    while (line := lines.get(timeout=EXIT_TIMEOUT)) is not None:
        if line.strip():
            rest.append(json.loads(line))
    return rest
