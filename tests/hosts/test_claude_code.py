"""Claude Code, every pinned version, for real: headless against the mock model, in a workspace
bootstrapped and set up with `powercontext setup claude --endpoint`.

The scripted session (one process, three prompts): a turn in which the model runs a subagent
(the Agent tool), "/compact" (Claude Code compacts with a subagent of its own), and a last
turn. Then what the user gets from it: every hook setup installed ran; the memory's context
reached the model; the memory tools are offered and a call reaches OUR server; the memory
holds one working note for the session; and, with the server stopped or hung, the session
still runs and the hooks give up in time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from powercontext_client.runtime import settings

from . import expectations, fail_open, subagent_session
from .claude_code import ClaudeCode, ClaudeSession, last_user_says, user_says
from .hook_runs import counts
from .mock_models import MockModels, Recorded, Text, ToolCall, texts
from .our_server import OurServer
from .per_pin import host_per_pin
from .pins import Pin, pins, versions
from .scripted import Scripted, play
from .workspace import Workspace

CLAUDE_PINS = pins("claude-code")
EVENTS = settings.HOOK_EVENTS  # the events whose hook does something
NOTIFIED_ANSWER = "The subagent is done; its findings are above."
PROMPTS = ["Use a subagent to read the Makefile.", "/compact", "Anything else to check?"]
SEARCH_TOOL = "mcp__powercontext__search_memory"


@dataclass
class Claude:
    pin: Pin
    host: ClaudeCode
    workspace: Workspace


def _start(pin: Pin, workspace: Workspace, models: MockModels) -> Claude:
    return Claude(pin, ClaudeCode(pin, workspace.user, models.url), workspace)


claude = host_per_pin(CLAUDE_PINS, _start)


@pytest.fixture(scope="module")
def scripted(claude: Claude, models: MockModels, server: OurServer) -> Scripted[ClaudeSession]:
    """The three-turn session, run once per version; the tests below read what it did."""
    models.reset()
    models.script(
        ToolCall(
            "Agent",
            {
                "description": "Read the Makefile",
                "prompt": subagent_session.TASK,
                "subagent_type": "general-purpose",
            },
        ),
        # Routed, not queued: the subagent may run in the background (2.1.332) while its
        # parent goes on, and its end may open a turn of its own.
        Text(subagent_session.FINDINGS, when=user_says(subagent_session.TASK)),
        Text(NOTIFIED_ANSWER, when=last_user_says("<task-notification>")),
        Text(
            f"<analysis>Short.</analysis>\n<summary>{subagent_session.COMPACT_SUMMARY}</summary>",
            when=last_user_says("summary"),
        ),
        Text(subagent_session.FIRST_ANSWER),
        Text(subagent_session.LAST_ANSWER),
    )
    workspace = claude.workspace

    def session() -> list[ClaudeSession]:  # one process for all the prompts
        return [claude.host.session(workspace.repo, PROMPTS, workspace.probe_log())]

    return play(claude, models, server, session)


def test_the_pinned_version_runs(claude: Claude) -> None:
    assert claude.host.version() == claude.pin.version == claude.pin.installed_version()


def test_every_installed_hook_fires(claude: Claude, scripted: Scripted[ClaudeSession]) -> None:
    """Every check runs and every problem is listed: a host upgrade that drifts shows all of
    its drift at once."""
    (session,) = scripted.runs
    installed = claude.workspace.installed_hooks(".claude/settings.json")
    fired = counts(session.hook_runs)
    sent = [text for r in scripted.requests for text in _strings(r)]
    problems = [
        *expectations.hook_problems(installed, EVENTS, session.hook_runs),
        *expectations.subagent_and_compaction_problems(
            installed, EVENTS, session.hook_runs, subagent_session.TASK, sent
        ),
    ]
    if len(session.results) < len(PROMPTS) or {r.get("subtype") for r in session.results} != {
        "success"
    }:
        problems.append(f"turns did not all succeed: {session.results}")
    if fired["Stop"] < 2 or fired["UserPromptSubmit"] < 2:
        problems.append(f"Stop/UserPromptSubmit per turn: {dict(fired)}")
    assert not problems, "\n".join(problems)


def _strings(request: Recorded) -> list[str]:
    return list(texts(request.body.get("messages", [])))


def test_the_memory_context_reaches_the_model(scripted: Scripted[ClaudeSession]) -> None:
    runs = scripted.hook_runs
    answered: dict[str, str] = {}
    for run in runs:  # the first turn's, before the compaction
        answered.setdefault(run.event, run.context)
    expectations.assert_context_sent(
        answered, scripted.entries_after, _strings(scripted.requests[0])
    )
    # After the compaction, SessionStart (source compact) gives the context back.
    compact = [
        r for r in runs if r.event == "SessionStart" and r.payload.get("source") == "compact"
    ]
    assert compact and "<memory-notes>" in compact[0].context, compact
    last = _strings(scripted.requests[-1])
    assert any(compact[0].context.strip() in s for s in last), "no context after the compaction"


def _has_tool(name: str) -> Callable[[Any], bool]:
    return lambda body: name in {tool.get("name") for tool in body.get("tools", [])}


def _lacks_tool(name: str) -> Callable[[Any], bool]:
    return lambda body: not _has_tool(name)(body)


def test_memory_tools_are_offered_and_a_call_reaches_our_server(
    claude: Claude, model: MockModels, server: OurServer
) -> None:
    # Offered directly (2.1.197), or deferred behind ToolSearch (2.1.332): the model then
    # selects the tool by name first. The script answers whichever the request shows.
    model.script(
        ToolCall(
            "ToolSearch",
            {"query": f"select:{SEARCH_TOOL}", "max_results": 5},
            when=_lacks_tool(SEARCH_TOOL),
        ),
        ToolCall(SEARCH_TOOL, {"query": expectations.QUERY}, when=_has_tool(SEARCH_TOOL)),
        Text("make test is the validation step."),
    )
    calls_before = len(server.calls())
    # By default the host sends the first turn while MCP servers are still starting (init says
    # "pending"); our bridge answers in ~1 s (mostly importing the MCP SDK), several on a loaded
    # machine, and its tools then come from the next turn on. The host's own switch makes it
    # wait for them (at most its 5 s connect timeout), so the first turn here has them.
    session = claude.host.session(
        claude.workspace.repo,
        ["What do we run to validate?"],
        claude.workspace.probe_log(),
        env={"MCP_CONNECTION_NONBLOCKING": "false"},
    )
    assert session.results and session.results[-1].get("subtype") == "success", session.results
    requests = model.model_requests()
    offered = {tool.get("name") for tool in requests[0].body.get("tools", [])}
    listed = "\n".join(_strings(requests[0]))
    init = [e.get("mcp_servers") for e in session.events if e.get("subtype") == "init"]
    assert SEARCH_TOOL in offered or ("ToolSearch" in offered and SEARCH_TOOL in listed), (
        offered,
        init,
    )
    (call,) = [r for r in requests if isinstance(r.reply, ToolCall) and r.reply.name == SEARCH_TOOL]
    after = requests[requests.index(call) + 1 :]
    results = [
        block
        for request in after
        for message in request.body.get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result" and block.get("tool_use_id") == call.tool_use_id
    ]
    assert results, "the tool's result never came back to the model"
    result = "\n".join(texts(results[0].get("content")))
    assert not results[0].get("is_error"), result
    new_calls = server.calls()[calls_before:]
    expectations.assert_the_search_reached_our_server(result, new_calls, server, claude.workspace)


def test_one_working_note_per_session(scripted: Scripted[ClaudeSession]) -> None:
    expectations.assert_no_memory_problems(scripted, subagent_session.COMPACT_SUMMARY)


# -- fail open ------------------------------------------------------------------------------------


def _one_turn(claude: Claude) -> ClaudeSession:
    workspace = claude.workspace
    session = claude.host.session(workspace.repo, [fail_open.PROMPT], workspace.probe_log())
    answers = [r.get("result") for r in session.results]
    assert answers == [fail_open.ANSWER], session.events[-3:]
    return session


@pytest.mark.parametrize("pin", CLAUDE_PINS, ids=versions(CLAUDE_PINS))
def test_fail_open_with_the_server_stopped_or_hung(pin: Pin, tmp_path: Path) -> None:
    fail_open.assert_fails_open_apart(tmp_path, pin, _start, _one_turn)
