"""Provider hook payloads, normalised into one HookEvent.

* Claude Code (stdin JSON): session_id, transcript_path, cwd, hook_event_name, optional
  permission_mode; per event prompt, source, stop_hook_active, last_assistant_message,
  agent_id / agent_transcript_path, trigger, custom_instructions, reason.
* Codex hooks (stdin JSON): the same event names and snake_case fields, plus turn_id and model;
  transcript_path may be null.
* Codex's legacy `notify` program (JSON as the LAST argv argument): {"type":
  "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages",
  "last-assistant-message"} — a turn that stopped, i.e. a Stop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

NOTIFY_TURN_COMPLETE = "agent-turn-complete"


class PayloadError(ValueError):
    pass


@dataclass(frozen=True)
class HookEvent:
    host: str  # "claude" | "codex"
    name: str  # SessionStart, UserPromptSubmit, Stop, SubagentStop, PreCompact, SessionEnd
    session_id: str
    cwd: str
    turn_id: str = ""
    prompt: str = ""
    source: str = ""
    stop_hook_active: bool = False
    last_assistant_message: str = ""
    transcript_path: str = ""
    agent_id: str = ""
    notify: bool = False  # from the legacy notify program: nothing is read from stdout

    @property
    def answers(self) -> bool:
        """Whether the host reads hookSpecificOutput from this invocation's stdout."""
        return not self.notify and self.name in ("SessionStart", "UserPromptSubmit")


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def parse_hook(host: str, text: str) -> HookEvent:
    """A Claude Code or Codex hook payload (stdin)."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise PayloadError(f"hook payload is not JSON: {error}") from error
    if not isinstance(data, dict) or not _str(data, "hook_event_name"):
        raise PayloadError("hook payload has no hook_event_name")
    subagent = data.get("hook_event_name") == "SubagentStop"
    transcript = _str(data, "agent_transcript_path") if subagent else ""
    return HookEvent(
        host=host,
        name=_str(data, "hook_event_name"),
        session_id=_str(data, "session_id"),
        cwd=_str(data, "cwd"),
        turn_id=_str(data, "turn_id"),
        prompt=_str(data, "prompt"),
        source=_str(data, "source"),
        stop_hook_active=data.get("stop_hook_active") is True,
        last_assistant_message=_str(data, "last_assistant_message"),
        transcript_path=transcript or _str(data, "transcript_path"),
        agent_id=_str(data, "agent_id"),
    )


def parse_notify(text: str) -> HookEvent | None:
    """Codex notify's JSON; None for notification types other than a completed turn."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise PayloadError(f"notify payload is not JSON: {error}") from error
    if not isinstance(data, dict):
        raise PayloadError("notify payload is not a JSON object")
    if data.get("type") != NOTIFY_TURN_COMPLETE:
        return None
    return HookEvent(
        host="codex",
        name="Stop",
        session_id=_str(data, "thread-id"),
        cwd=_str(data, "cwd"),
        turn_id=_str(data, "turn-id"),
        last_assistant_message=_str(data, "last-assistant-message"),
        notify=True,
    )
