"""Codex, headless: `codex exec --json`, pointed at the mock model, and the user's one-time trust.

How it reaches the mock and nothing else: the user's $CODEX_HOME/config.toml selects a model
provider of its own (`[model_providers.mock]`, `wire_api = "responses"`, `base_url` the mock's
/v1, its key read from MOCK_API_KEY) — OpenAI's endpoints and the ChatGPT login are never used.

Trust, as the user gives it once in the interactive TUI: first "trust this folder" (a
project's .codex/ is read only for trusted projects), then, on the "Hooks need review" screen,
"Trust all and continue". The TUI is a client of Codex's app-server and does both through it;
`trust()` makes the same app-server calls: `config/batchWrite` of `projects.<repo>.trust_level
= "trusted"`, then `hooks/list` and a `config/batchWrite` upserting `hooks.state.<key> =
{trusted_hash = <currentHash>}` for every hook that needs review. So the trust lands in
config.toml exactly as the TUI writes it, with the hashes Codex computes itself.

A session with several turns is `codex exec` for the first and `codex exec resume <thread>`
for the next (each is one process: SessionStart ... SessionEnd).
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .launch import HostRun, ask_version, headless_turn
from .pins import Pin
from .workspace import User, Workspace

RPC_TIMEOUT = 30.0
MOCK_KEY_VARIABLE = "MOCK_API_KEY"


def user_config(models_url: str) -> str:
    """The user's own settings: the mock provider. No retries: a mock that failed once would
    only fail again, and slower."""
    return f"""model = "mock-model"
model_provider = "mock"
# Codex starts building the tool list after 1 s by default and leaves out an MCP server not
# up by then; the bridge takes ~1 s to import the MCP SDK, more on a loaded machine. Wait for
# it (its startup_timeout_sec): the tests judge our tools, not that race.
mcp_optional_startup_grace_ms = 0

[model_providers.mock]
name = "Mock model (tests/hosts/mock_models.py)"
base_url = "{models_url}/v1"
wire_api = "responses"
env_key = "{MOCK_KEY_VARIABLE}"
request_max_retries = 0
stream_max_retries = 0
"""


class CodexRun(HostRun):
    """One `codex exec --json` process, one turn (events: its JSON output)."""

    @property
    def thread_id(self) -> str:
        return next(str(e["thread_id"]) for e in self.events if e.get("type") == "thread.started")

    @property
    def messages(self) -> list[str]:
        """The agent's messages, as the user reads them."""
        return [
            str(e["item"]["text"])
            for e in self.events
            if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
        ]

    @property
    def errors(self) -> list[str]:
        """The error and warning items Codex shows the user."""
        return [
            str(e["item"].get("message", ""))
            for e in self.events
            if e.get("type") == "item.completed" and e["item"].get("type") == "error"
        ]

    @property
    def completed(self) -> bool:
        return self.returncode == 0 and any(e.get("type") == "turn.completed" for e in self.events)


class Codex:
    def __init__(self, pin: Pin, user: User, models_url: str) -> None:
        self.pin = pin
        self.user = user
        self.env = {**user.env, MOCK_KEY_VARIABLE: "mock-key"}
        (user.codex_home / "config.toml").write_text(user_config(models_url))

    def version(self) -> str:
        done = ask_version(self.pin, self.env)  # "codex-cli 0.171.0"
        return done.stdout.split()[-1] if done.stdout else done.stderr

    # -- the user's one-time trust ----------------------------------------------------------------

    def trust(self, repo: Path) -> list[dict[str, Any]]:
        """Trust the folder, then "Trust all and continue"; the hooks as Codex lists them after."""
        with AppServer(self.pin, self.env, repo) as app:
            app.call(
                "config/batchWrite", _upsert("projects", {str(repo): {"trust_level": "trusted"}})
            )
        with AppServer(self.pin, self.env, repo) as app:  # a fresh start reads the project layer
            review = [h for h in app.hooks(repo) if h["trustStatus"] != "trusted"]
            state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in review}
            if state:
                app.call("config/batchWrite", _upsert("hooks.state", state))
            return app.hooks(repo)

    # -- sessions ---------------------------------------------------------------------------------

    def run(self, repo: Path, prompt: str, probe_log: Path, *, resume: str = "") -> CodexRun:
        """One turn: `codex exec` (a new session) or `codex exec resume THREAD` (its next turn)."""
        command = [*self.pin.command(), "exec", "--json"]
        command += ["resume", resume, prompt] if resume else [prompt]
        return headless_turn(CodexRun(), command, repo, self.env, probe_log)

    def session(self, workspace: Workspace, prompts: list[str]) -> list[CodexRun]:
        """A turn per prompt in one thread: the first starts it, the next ones resume it."""
        runs = [self.run(workspace.repo, prompts[0], workspace.probe_log())]
        for prompt in prompts[1:]:
            resume = runs[0].thread_id
            runs.append(self.run(workspace.repo, prompt, workspace.probe_log(), resume=resume))
        return runs


def _upsert(key_path: str, value: dict[str, Any]) -> dict[str, Any]:
    """The TUI's config write: one upsert into the user's config.toml, then reload it."""
    return {
        "edits": [{"keyPath": key_path, "value": value, "mergeStrategy": "upsert"}],
        "filePath": None,
        "expectedVersion": None,
        "reloadUserConfig": True,
    }


class AppServer:
    """`codex app-server` over stdio: JSON-RPC, one JSON object per line."""

    def __init__(self, pin: Pin, env: dict[str, str], cwd: Path) -> None:
        self._process = subprocess.Popen(
            [*pin.command(), "app-server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._ids = 0

    def __enter__(self) -> AppServer:
        self.call("initialize", {"clientInfo": {"name": "powercontext-tests", "version": "0"}})
        self._send({"method": "initialized"})
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        try:
            self._process.wait(timeout=RPC_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def hooks(self, repo: Path) -> list[dict[str, Any]]:
        (entry,) = self.call("hooks/list", {"cwds": [str(repo)]})["data"]
        assert not entry["errors"], entry["errors"]
        return list(entry["hooks"])

    def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self._ids += 1
        self._send({"id": self._ids, "method": method, "params": params})
        stdout: IO[str] | None = self._process.stdout
        assert stdout is not None
        deadline = time.monotonic() + RPC_TIMEOUT
        while time.monotonic() < deadline:
            line = stdout.readline()
            assert line, f"codex app-server exited during {method}"
            message = json.loads(line)
            if message.get("id") == self._ids:  # notifications in between are not ours
                assert "error" not in message, (method, message["error"])
                return dict(message["result"])
        raise AssertionError(f"codex app-server did not answer {method}")

    def _send(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message) + "\n")
        self._process.stdin.flush()


def spawned_agents(body: Any) -> list[str]:
    """The agent ids Codex returned to spawn_agent calls, from a request's input: what the
    model passes to wait_agent."""
    calls = {
        item["call_id"]
        for item in body.get("input", [])
        if item.get("type") == "function_call" and item.get("name") == "spawn_agent"
    }
    ids = []
    for item in body.get("input", []):
        if item.get("type") == "function_call_output" and item.get("call_id") in calls:
            output = item.get("output")
            text = output if isinstance(output, str) else json.dumps(output)
            ids.append(str(json.loads(text)["agent_id"]))
    return ids


def user_says(text: str) -> Callable[[Any], bool]:
    """A `when` for the requests in which a user message holds `text` (a subagent's requests
    start with its task as the user's message; its parent has the task only as a tool call's
    arguments)."""
    return lambda body: any(text in t for t in _user_texts(body.get("input", [])))


def last_user_says(text: str) -> Callable[[Any], bool]:
    """A `when` for the requests whose last user message holds `text`."""

    def check(body: Any) -> bool:
        users = [i for i in body.get("input", []) if _is_user_message(i)]
        return bool(users) and any(text in t for t in _user_texts(users[-1:]))

    return check


def _is_user_message(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user"


def _user_texts(items: list[Any]) -> Iterator[str]:
    for item in items:
        if _is_user_message(item):
            yield from (c.get("text", "") for c in item.get("content", []) if isinstance(c, dict))
