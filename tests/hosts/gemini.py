"""Gemini CLI, headless: `gemini -p PROMPT --output-format stream-json`, pointed at the mock
model; and the user's one-time folder trust, given in Gemini's own interactive dialog.

How it reaches the mock and nothing else: GOOGLE_GEMINI_BASE_URL (the Gemini API root; plain
http is accepted for 127.0.0.1) with GEMINI_API_KEY (any value), and the user's
~/.gemini/settings.json choosing API-key auth, a fixed model (the default "auto" first asks a
router model to classify the prompt), no usage statistics, no update checks and one attempt per
request (a mock that failed once would only fail again, and slower).

Trust, as the user gives it once: `gemini` started in the repository shows "Do you trust the
files in this folder?" with what the folder would load (our MCP server; Gemini 0.61 lists no
hook of the documented `{"hooks": [...]}` form there), and the user picks "1. Trust folder".
`trust()` does exactly that in a pseudo-terminal; Gemini itself writes the choice to
~/.gemini/trustedFolders.json. Until then a headless run in the
repository exits with an error, and no project hook or MCP server is loaded.

The memory tools: headless, Gemini leaves out of the request every tool that would need the
user's approval. The user allows ours the way Gemini documents it, with a rule in their own
policy directory (~/.gemini/policies/): the powercontext server's read-only tools are allowed,
as a user who runs Gemini headless would allow them once.

A session with several turns is `gemini -p --session-id ID` for the first turn and
`gemini -p --resume ID` for the next (each is one process: SessionStart ... SessionEnd).
GEMINI_CLI_NO_RELAUNCH skips the restart of the CLI in a child Node with a bigger heap: the
same CLI runs, one Node start-up less per turn.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import termios
import time
import uuid
from pathlib import Path
from typing import Any

from .launch import HostRun, ask_version, headless_turn
from .pins import Pin
from .workspace import User, Workspace

TRUST_TIMEOUT = 60.0
EXIT_SECONDS = 5.0
NO_RELAUNCH = "GEMINI_CLI_NO_RELAUNCH"
MODEL = "gemini-2.5-flash"
TRUST_QUESTION = "Do you trust the files in this folder?"
TRUST_FOLDER = "1. Trust folder"
# The dialog lists what the folder would load once Gemini has looked (our MCP server); the
# user answers after reading it.
LISTED = "- powercontext"
NEW_HOOKS_WARNING = "The following project-level hooks have been detected"
# The user's policy: the memory server's read-only tools run without asking.
MEMORY_TOOLS_POLICY = """[[rule]]
mcpName = "powercontext"
toolName = "*"
toolAnnotations = { readOnlyHint = true }
decision = "allow"
priority = 100
"""
TERMINAL_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def user_settings() -> dict[str, Any]:
    return {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": MODEL},
        "privacy": {"usageStatisticsEnabled": False},
        "general": {
            "enableAutoUpdate": False,
            "enableAutoUpdateNotification": False,
            "maxAttempts": 1,
        },
    }


class GeminiRun(HostRun):
    """One `gemini -p` process, one turn (events: its stream-json output)."""

    @property
    def session_id(self) -> str:
        return next(str(e["session_id"]) for e in self.events if e.get("type") == "init")

    @property
    def answer(self) -> str:
        """The model's words of the turn, as the user reads them (the deltas joined)."""
        return "".join(
            str(e.get("content", ""))
            for e in self.events
            if e.get("type") == "message" and e.get("role") == "assistant"
        )

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e.get("type") == "tool_result"]

    @property
    def completed(self) -> bool:
        results = [e for e in self.events if e.get("type") == "result"]
        return self.returncode == 0 and [r.get("status") for r in results] == ["success"]


class Gemini:
    def __init__(self, pin: Pin, user: User, models_url: str) -> None:
        self.pin = pin
        self.user = user
        self.dot_gemini = user.home / ".gemini"
        self.env = {
            **user.env,
            "GOOGLE_GEMINI_BASE_URL": models_url,
            "GEMINI_API_KEY": "mock-key",
        }
        (self.dot_gemini / "policies").mkdir(parents=True, exist_ok=True)
        (self.dot_gemini / "settings.json").write_text(json.dumps(user_settings(), indent=2))
        (self.dot_gemini / "policies" / "memory-tools.toml").write_text(MEMORY_TOOLS_POLICY)

    def version(self) -> str:
        done = ask_version(self.pin, {**self.env, NO_RELAUNCH: "true"})  # "0.61.0"
        return done.stdout.strip() or done.stderr

    def trusted_folders(self) -> dict[str, str]:
        """The user's trust choices as Gemini saved them ({} before the first, or mid-write)."""
        try:
            return dict(json.loads((self.dot_gemini / "trustedFolders.json").read_text()))
        except (OSError, ValueError):
            return {}

    # -- the user's one-time trust ----------------------------------------------------------------

    def trust(self, repo: Path) -> str:
        """Start `gemini` in `repo` on a terminal, answer its trust dialog with "Trust folder",
        and leave once Gemini recorded the choice; the dialog as the user saw it."""
        pid, fd = pty.fork()
        if pid == 0:  # the child: Gemini on the terminal, as the user starts it
            try:
                os.chdir(repo)
                command = self.pin.command()
                os.execvpe(command[0], command, {**self.env, "TERM": "xterm-256color"})
            finally:
                os._exit(127)
        shown = b""
        try:
            fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
            deadline = time.monotonic() + TRUST_TIMEOUT
            while not _dialog_complete(_screen(shown)):
                assert time.monotonic() < deadline, f"no trust dialog: {_screen(shown)[-3000:]}"
                shown += _read(fd)
            screen = _screen(shown)
            dialog = screen[screen.rfind(TRUST_QUESTION) :]
            os.write(fd, b"\r")  # the first choice is selected: "Trust folder"
            while str(repo) not in self.trusted_folders():
                assert time.monotonic() < deadline, f"trust not recorded: {_screen(shown)[-3000:]}"
                shown += _read(fd)
        finally:
            _end(pid)
            os.close(fd)
        return dialog

    # -- sessions ---------------------------------------------------------------------------------

    def run(
        self, repo: Path, prompt: str, probe_log: Path, *, session: str = "", resume: str = ""
    ) -> GeminiRun:
        """One turn: a new session (with id `session` when given), or the next turn of `resume`."""
        command = [*self.pin.command(), "-p", prompt, "--output-format", "stream-json"]
        command += (
            ["--resume", resume] if resume else (["--session-id", session] if session else [])
        )
        env = {**self.env, NO_RELAUNCH: "true"}
        return headless_turn(GeminiRun(), command, repo, env, probe_log)

    def session(self, workspace: Workspace, prompts: list[str]) -> list[GeminiRun]:
        """A turn per prompt in one session: the first names it, the next ones resume it."""
        session = str(uuid.uuid4())
        runs = [self.run(workspace.repo, prompts[0], workspace.probe_log(), session=session)]
        for prompt in prompts[1:]:
            runs.append(self.run(workspace.repo, prompt, workspace.probe_log(), resume=session))
        return runs


def _end(pid: int) -> None:
    """End Gemini and the CLI it relaunched (pty.fork made them a process group of their own):
    SIGTERM, then SIGKILL, since the launcher itself ignores SIGTERM, SIGINT and SIGHUP."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, sig)
        deadline = time.monotonic() + EXIT_SECONDS
        while time.monotonic() < deadline:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)  # a child left behind
                return
            time.sleep(0.05)
    os.waitpid(pid, 0)


def _read(fd: int) -> bytes:
    """What Gemini writes to the terminal next (within 0.1 s)."""
    ready, _, _ = select.select([fd], [], [], 0.1)
    if not ready:
        return b""
    try:
        return os.read(fd, 65536)
    except OSError:  # the terminal closed: Gemini exited
        return b""


def _dialog_complete(screen: str) -> bool:
    dialog = screen[screen.rfind(TRUST_QUESTION) :] if TRUST_QUESTION in screen else ""
    return TRUST_FOLDER in dialog and LISTED in dialog


def _screen(shown: bytes) -> str:
    """The text Gemini wrote to the terminal, without its escape sequences."""
    return TERMINAL_ESCAPES.sub("", shown.decode("utf-8", "replace"))


def escaped(context: str) -> str:
    """A hook's context as Gemini hands it to the model: `<` and `>` escaped (the rest of the
    text as it was), inside `<hook_context>` tags."""
    return context.replace("<", "&lt;").replace(">", "&gt;")
