"""What each agent event does (Claude Code, Codex and Gemini CLI hooks, Codex notify; Gemini's
SessionStart, BeforeAgent and AfterAgent arrive as SessionStart, UserPromptSubmit and Stop).

| event            | does                                                                    |
|------------------|-------------------------------------------------------------------------|
| SessionStart     | PrepareContext on the repository's memory -> additionalContext          |
| UserPromptSubmit | an explicit instruction (triggers.py) -> user_note Source -> EXTRACT;   |
|                  | a FORGET suggestion naming one entry is applied (reason user_requested),|
|                  | AMBIGUOUS is reported in the context, never guessed; then PrepareContext|
|                  | with the prompt as query -> additionalContext (not when it is the block |
|                  | the host already put before this prompt: headless Gemini's SessionStart)|
| Stop             | (skipped when stop_hook_active) report + git head + changed paths ->  |
|                  | task_outcome Source -> EXTRACT: the session's one working note, added |
|                  | by its first turn and revised by the next ones (the manifest keeps its|
|                  | entry id), once per session and turn                                    |
| SubagentStop     | nothing: a subagent's report reaches the main agent, whose Stop keeps   |
|                  | the turn (Claude Code also runs /compact as a subagent: its summary is  |
|                  | never stored)                                                           |
| PreCompact       | nothing: the host takes no additionalContext there; SessionStart with   |
|                  | source "compact" re-injects the context after compaction                |
| SessionEnd       | nothing (the last Stop already stored the turn)                         |

A prompt the host wrote itself (Claude Code's `<system-reminder>` notifications of background
subagents open a model turn as if the user spoke) is not the user's words: no instruction is
read from it and no context is injected for it. The paths setup writes (.claude/, .codex/,
.gemini/, .mcp.json) are never reported as changed.

A repository without a memory in the manifest gets no context; only a write that the server
turns into a new memory (a working note, an explicit instruction) records one, after it
succeeded. Failures are the caller's (cli/hook.py) to swallow: hooks always fail open.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import uuid
from collections.abc import Callable
from pathlib import Path

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..errors import AlreadyExists
from . import git, outcome
from .calls import Calls, Deadline
from .events import HookEvent
from .manifest import RuntimeManifest
from .repo import Repo, locate
from .sources import task_outcome_source, user_note_source
from .transcript import last_assistant_text
from .triggers import is_explicit_instruction

CONTEXT_BUDGET_BYTES = 8192
FORGET_REASON = "user_requested"
NOTE_KIND = "working_note"
HOST_NOTIFICATION_PREFIXES = ("<system-reminder>", "<task-notification>")
SETUP_DIRECTORIES = frozenset({".claude", ".codex", ".gemini"})
SETUP_MCP_FILE = ".mcp.json"
SETUP_MCP_BACKUP = ".mcp.json.bak-"
_TURN_NAMESPACE = uuid.UUID("6f1c2a0e-5d4b-4a8e-9c3f-2b7d1e0a9c41")

CallsFactory = Callable[[str], Calls]  # endpoint recorded for the repository ("" if none)


class HookRunner:
    def __init__(
        self, manifest: RuntimeManifest, deadline: Deadline, connect: CallsFactory
    ) -> None:
        self.manifest = manifest
        self.deadline = deadline
        self.connect = connect

    def handle(self, event: HookEvent) -> str:
        """The additionalContext to answer with ("" = nothing to say)."""
        handler = {
            "SessionStart": self.session_start,
            "UserPromptSubmit": self.user_prompt,
            "Stop": self.stop,
        }.get(event.name)
        if handler is None or not event.cwd:
            return ""
        repo = locate(event.cwd, self.manifest, timeout=self.deadline.remaining())
        if repo is None:
            return ""
        return handler(event, repo)

    # -- context --------------------------------------------------------------------------------

    def session_start(self, event: HookEvent, repo: Repo) -> str:
        if not repo.memory_id:
            return ""
        with self.connect(repo.endpoint) as calls:
            return calls.prepare_context(repo.memory_id, "", CONTEXT_BUDGET_BYTES).block

    def user_prompt(self, event: HookEvent, repo: Repo) -> str:
        explicit = is_explicit_instruction(event.prompt)
        if is_host_notification(event.prompt) or not (repo.memory_id or explicit):
            return ""  # nothing to read, nothing to keep: no server is asked (or started)
        with self.connect(repo.endpoint) as calls:
            notes: list[str] = []
            memory_id = repo.memory_id
            if explicit:
                memory_id, notes = self._instruction(calls, event, repo)
            if not memory_id:
                return ""
            block = calls.prepare_context(memory_id, event.prompt, CONTEXT_BUDGET_BYTES).block
        if block.strip() and block.strip() == event.shown.strip():
            block = ""  # the host put this very block before the prompt already
        return "\n\n".join(part for part in ("\n".join(notes), block) if part)

    def _instruction(self, calls: Calls, event: HookEvent, repo: Repo) -> tuple[str, list[str]]:
        note = calls.put_source(
            user_note_source(event.prompt, host=event.host, session_id=event.session_id),
            repo.memory_id,
        )
        response = self._extract(calls, repo, [note], request_id="")
        memory_id = response.memory.artifact_id if response.HasField("memory") else repo.memory_id
        notes = []
        if response.changed:
            notes.append(
                f"PowerContext memory updated from the user's words: {outcome.summary(response)}."
            )
        for suggestion in response.suggestions:
            target = outcome.single_forget(suggestion)
            if target is not None and memory_id:
                forgot = calls.forget(memory_id, [target], reason=FORGET_REASON)
                state = "forgotten" if forgot.changed else "already inactive"
                notes.append(
                    f"PowerContext memory: entry {target.entry_id} {state} as the user asked "
                    f"({suggestion.reason})."
                )
            else:
                notes.append(
                    "PowerContext memory did NOT change: the instruction does not name exactly "
                    f"one entry — {outcome.describe(suggestion)}. Ask the user which one is meant."
                )
        return memory_id, notes

    # -- turn outcomes --------------------------------------------------------------------------

    def stop(self, event: HookEvent, repo: Repo) -> str:
        if event.stop_hook_active:
            return ""  # the agent is continuing because of a Stop hook: not a boundary
        report = event.last_assistant_message.strip() or last_assistant_text(event.transcript_path)
        turn = _turn_key(event, report)
        session = event.session_id or "-"
        if repo.state is not None and repo.state.turn_processed(session, turn):
            return ""
        if not report.strip():
            if repo.state is not None:
                self.manifest.mark_turn(repo.root, session, turn)
            return ""  # nothing useful: no-op
        remaining = self.deadline.remaining()
        source = task_outcome_source(
            host=event.host,
            session_id=session,
            turn_id=event.turn_id or turn,
            report=report,
            git_head=git.head(repo.root, timeout=remaining),
            changed_paths=_changed(repo.root, remaining),
            note_entry_id=repo.state.notes.get(session, "") if repo.state is not None else "",
        )
        request_id = str(uuid.uuid5(_TURN_NAMESPACE, f"{repo.root}\0{session}\0{turn}"))
        response = None
        with self.connect(repo.endpoint) as calls:
            ref = calls.put_source(source, repo.memory_id)
            # REQUEST_ID_REUSED: this very turn committed before (a racing repeat): done.
            with contextlib.suppress(AlreadyExists):
                response = self._extract(calls, repo, [ref], request_id=request_id)
        if self.manifest.repo(repo.root) is not None:
            self.manifest.mark_turn(repo.root, session, turn)
            note = _working_note(response)
            if note:
                self.manifest.record_note(repo.root, session, note)
        return ""

    def _extract(
        self, calls: Calls, repo: Repo, sources: list[types.SourceRef], *, request_id: str
    ) -> pb.RememberResponse:
        """EXTRACT on the repository's memory; a new memory only when the server saved one, and
        then under the manifest lock (two hooks on a fresh repository make one memory)."""
        if repo.memory_id:
            return calls.extract(repo.memory_id, sources, request_id=request_id)
        with self.manifest.locked(timeout=self.deadline.remaining()):
            state = self.manifest.repo(repo.root)
            response = calls.extract(
                state.memory_id if state else None, sources, request_id=request_id
            )
            if state is None and response.HasField("memory"):
                self.manifest.record_memory(
                    repo.root,
                    response.memory.artifact_id,
                    endpoint=calls.recorded_endpoint,
                    remote=git.remote(repo.root, timeout=self.deadline.remaining()),
                )
            return response


def _turn_key(event: HookEvent, report: str) -> str:
    """The turn's identity: the host's turn id when it has one (Codex), else the hash of the
    report and of the prompt when the host gives it (Gemini's AfterAgent does, Claude Code's Stop
    does not): the same stop twice is the same turn, the same answer to another prompt is not."""
    if event.turn_id:
        return (
            f"turn:{event.agent_id}:{event.turn_id}" if event.agent_id else f"turn:{event.turn_id}"
        )
    said = f"{event.prompt}\0{report}" if event.prompt else report
    digest = hashlib.sha256(said.encode("utf-8")).hexdigest()[:32]
    return f"report:{event.agent_id}:{digest}" if event.agent_id else f"report:{digest}"


def answer(event: HookEvent, context: str) -> str:
    """The hook's stdout ("" when it has nothing to say): all three hosts read
    hookSpecificOutput.additionalContext, named after the event as the host calls it."""
    if not context or not event.answers:
        return ""
    output = {"hookEventName": event.host_event or event.name, "additionalContext": context}
    return json.dumps({"hookSpecificOutput": output}, ensure_ascii=False)


def _working_note(response: pb.RememberResponse | None) -> str:
    """The entry id of the working note this EXTRACT added or revised ("" when none)."""
    if response is None:
        return ""
    for candidate, result in zip(response.candidates, response.results, strict=False):
        if candidate.kind == NOTE_KIND and result.entry_id:
            return str(result.entry_id)
    return ""


def is_host_notification(prompt: str) -> bool:
    """A prompt the host wrote (a background task's notification), not the user's words."""
    text = prompt.lstrip()
    return text.startswith(HOST_NOTIFICATION_PREFIXES) or "[SYSTEM NOTIFICATION" in text[:200]


def _changed(root: Path, timeout: float) -> list[str]:
    try:
        paths = git.working_changes(root, timeout=timeout)
    except git.GitError:
        return []
    return [p for p in paths if not is_setup_path(p)]


def is_setup_path(path: str) -> bool:
    """A file `powercontext setup` writes (or its backup): not the agent's work."""
    top = path.split("/", 1)[0]
    return top in SETUP_DIRECTORIES or top == SETUP_MCP_FILE or top.startswith(SETUP_MCP_BACKUP)
