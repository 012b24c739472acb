"""Provider hook payloads, normalised into one HookEvent.

* Claude Code (stdin JSON): session_id, transcript_path, cwd, hook_event_name, optional
  permission_mode; per event prompt, source, stop_hook_active, last_assistant_message,
  agent_id / agent_transcript_path, trigger, custom_instructions, reason.
* Codex hooks (stdin JSON): the same event names and snake_case fields, plus turn_id and model;
  transcript_path may be null.
* Codex's legacy `notify` program (JSON as the LAST argv argument): {"type":
  "agent-turn-complete", "thread-id", "turn-id", "cwd", "input-messages",
  "last-assistant-message"} — a turn that stopped, i.e. a Stop.
* Gemini CLI hooks (stdin JSON): session_id, transcript_path, cwd, hook_event_name, timestamp;
  SessionStart: source (startup|resume|clear); BeforeAgent: prompt; AfterAgent: prompt,
  prompt_response (the turn's answer), stop_hook_active. Its own event names are mapped onto
  ours (GEMINI_EVENTS) and kept for the answer. Headless, Gemini prepends the SessionStart
  context to the prompt as `<hook_context>…</hook_context>`: that is not the user's words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Final

NOTIFY_TURN_COMPLETE = "agent-turn-complete"
# Gemini CLI's events whose hook does something -> the runtime's names for them.
GEMINI_EVENTS: Final = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "AfterAgent": "Stop",
}
# What Gemini puts before the user's prompt (hook context it injected, its `<` and `>`
# escaped), and what it reports for a turn that produced no text.
GEMINI_INJECTED = re.compile(r"\A\s*<hook_context>(.*?)</hook_context>\s*", re.DOTALL)
GEMINI_NO_TEXT = "[no response text]"


class PayloadError(ValueError):
    pass


@dataclass(frozen=True)
class HookEvent:
    host: str  # "claude" | "codex" | "gemini"
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
    host_event: str = ""  # the host's own name for the event, when it differs (Gemini)
    shown: str = ""  # hook context the host already put before this prompt (Gemini, headless)

    @property
    def answers(self) -> bool:
        """Whether the host reads hookSpecificOutput from this invocation's stdout."""
        return not self.notify and self.name in ("SessionStart", "UserPromptSubmit")


def _str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _payload(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise PayloadError(f"hook payload is not JSON: {error}") from error
    if not isinstance(data, dict) or not _str(data, "hook_event_name"):
        raise PayloadError("hook payload has no hook_event_name")
    return data


def parse_hook(host: str, text: str) -> HookEvent:
    """A Claude Code, Codex or Gemini CLI hook payload (stdin)."""
    data = _payload(text)
    if host == "gemini":
        return _gemini(data)
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


def _gemini(data: dict[str, Any]) -> HookEvent:
    """No transcript_path: Gemini's chat file is not the transcript the runtime reads, and
    AfterAgent carries the answer itself."""
    wire = _str(data, "hook_event_name")
    report = _str(data, "prompt_response")
    shown, prompt = split_injected(_str(data, "prompt"))
    return HookEvent(
        host="gemini",
        name=GEMINI_EVENTS.get(wire, wire),
        session_id=_str(data, "session_id"),
        cwd=_str(data, "cwd"),
        prompt=prompt,
        source=_str(data, "source"),
        stop_hook_active=data.get("stop_hook_active") is True,
        last_assistant_message="" if report == GEMINI_NO_TEXT else report,
        host_event=wire,
        shown=shown,
    )


def split_injected(prompt: str) -> tuple[str, str]:
    """A Gemini prompt -> (the hook context Gemini put before it, unescaped; the user's words)."""
    shown: list[str] = []
    while found := GEMINI_INJECTED.match(prompt):
        shown.append(found[1].replace("&lt;", "<").replace("&gt;", ">"))
        prompt = prompt[found.end() :]
    return "\n".join(shown), prompt


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
