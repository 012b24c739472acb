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

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from powercontext_client.runtime import settings

from .claude_code import ClaudeCode, ClaudeSession, last_user_says, user_says
from .expectations import memory_problems, quotes_an_entry
from .fail_open import measure
from .hook_runs import counts, latency_table
from .memory_view import Entry, active_entries
from .mock_models import MockModels, Recorded, Text, ToolCall, texts
from .our_server import OurServer
from .pins import Pin, pins
from .workspace import Workspace, prepared

CLAUDE_PINS = pins("claude-code")
EVENTS = settings.HOOK_EVENTS  # the events whose hook does something
SUBAGENT_TASK = "Read the Makefile and list its targets."
SUBAGENT_FINDINGS = "The Makefile has two targets: test and check."
FIRST_ANSWER = "A subagent read the Makefile: test and check are its targets."
COMPACT_SUMMARY = "Compaction summary 7f3a: the user asked which Makefile targets exist."
NOTIFIED_ANSWER = "The subagent is done; its findings are above."
LAST_ANSWER = "Nothing else to check: run make test before you commit."
PROMPTS = ["Use a subagent to read the Makefile.", "/compact", "Anything else to check?"]
SEARCH_TOOL = "mcp__powercontext__search_memory"
QUERY = "make test"


@dataclass
class Claude:
    pin: Pin
    host: ClaudeCode
    workspace: Workspace


@pytest.fixture(scope="module", params=CLAUDE_PINS, ids=[p.version for p in CLAUDE_PINS])
def claude(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    server: OurServer,
    models: MockModels,
) -> Iterator[Claude]:
    pin: Pin = request.param
    directory = tmp_path_factory.mktemp(f"claude-{pin.version}")
    with prepared(directory, server.endpoint, "claude") as workspace:
        yield Claude(pin, ClaudeCode(pin, workspace.user, models.url), workspace)


@dataclass
class Scripted:
    session: ClaudeSession
    requests: list[Recorded]
    head_before: int
    entries_after: list[Entry]  # the memory right after the session, before other tests


@pytest.fixture(scope="module")
def scripted(claude: Claude, models: MockModels) -> Iterator[Scripted]:
    """The three-turn session, run once per version; the tests below read what it did."""
    models.reset()
    models.script(
        ToolCall(
            "Agent",
            {
                "description": "Read the Makefile",
                "prompt": SUBAGENT_TASK,
                "subagent_type": "general-purpose",
            },
        ),
        # Routed, not queued: the subagent may run in the background (2.1.332) while its
        # parent goes on, and its end may open a turn of its own.
        Text(SUBAGENT_FINDINGS, when=user_says(SUBAGENT_TASK)),
        Text(NOTIFIED_ANSWER, when=last_user_says("<task-notification>")),
        Text(
            f"<analysis>Short.</analysis>\n<summary>{COMPACT_SUMMARY}</summary>",
            when=last_user_says("summary"),
        ),
        Text(FIRST_ANSWER),
        Text(LAST_ANSWER),
    )
    before = claude.workspace.head()
    session = claude.host.session(claude.workspace.repo, PROMPTS, claude.workspace.probe_log())
    print(f"\nClaude Code {claude.pin.version} scripted session: {session.seconds:.1f} s")
    for event, figures in latency_table(session.hook_runs).items():
        print(f"  {event}: {figures}")
    entries = active_entries(claude.workspace.endpoint, claude.workspace.memory_id)
    yield Scripted(session, models.model_requests(), before, entries)


def test_the_pinned_version_runs(claude: Claude) -> None:
    assert claude.host.version() == claude.pin.version == claude.pin.installed_version()


def test_every_installed_hook_fires(claude: Claude, scripted: Scripted) -> None:
    """Every check runs and every problem is listed: a host upgrade that drifts shows all of
    its drift at once."""
    settings = json.loads((claude.workspace.repo / ".claude" / "settings.json").read_text())
    installed = set(settings["hooks"])
    session = scripted.session
    fired = counts(session.hook_runs)
    sources = [r.payload.get("source") for r in session.hook_runs if r.event == "SessionStart"]
    problems = []
    if installed != set(EVENTS):  # no hook that would only cost a process per event
        problems.append(f"setup installed {sorted(installed)}, not {EVENTS}")
    if len(session.results) < len(PROMPTS) or {r.get("subtype") for r in session.results} != {
        "success"
    }:
        problems.append(f"turns did not all succeed: {session.results}")
    if not all(fired[e] >= 1 for e in installed | set(EVENTS)):
        problems.append(f"not every hook ran: {dict(fired)}")
    # The compaction happened, and SessionStart fired after it (its context comes back).
    if sources[:1] != ["startup"] or "compact" not in sources:
        problems.append(f"SessionStart sources {sources}")
    # The subagent ran: its own request reached the model.
    if not any(SUBAGENT_TASK in text for r in scripted.requests for text in _strings(r)):
        problems.append("no request of the subagent reached the model")
    if fired["Stop"] < 2 or fired["UserPromptSubmit"] < 2:
        problems.append(f"Stop/UserPromptSubmit per turn: {dict(fired)}")
    complaints = [(r.event, r.stderr) for r in session.hook_runs if r.stderr.strip()]
    if complaints:
        problems.append(f"hooks complained on stderr: {complaints}")
    assert not problems, "\n".join(problems)


def _strings(request: Recorded) -> list[str]:
    return list(texts(request.body.get("messages", [])))


def test_the_memory_context_reaches_the_model(scripted: Scripted) -> None:
    runs = scripted.session.hook_runs
    answered: dict[str, str] = {}
    for run in runs:  # the first turn's, before the compaction
        answered.setdefault(run.event, run.context)
    rules = [e.text for e in scripted.entries_after if e.kind != "working_note"]
    first = _strings(scripted.requests[0])
    for event in ("SessionStart", "UserPromptSubmit"):
        context = answered.get(event, "")
        assert "<memory-notes>" in context, (event, context)
        assert any(rule in context for rule in rules), (event, context)
        assert any(context.strip() in s for s in first), f"{event}'s context not in the request"
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
        ToolCall(SEARCH_TOOL, {"query": QUERY}, when=_has_tool(SEARCH_TOOL)),
        Text("make test is the validation step."),
    )
    calls_before = len(server.calls())
    session = claude.host.session(
        claude.workspace.repo, ["What do we run to validate?"], claude.workspace.probe_log()
    )
    assert session.results and session.results[-1].get("subtype") == "success", session.results
    requests = model.model_requests()
    offered = {tool.get("name") for tool in requests[0].body.get("tools", [])}
    listed = "\n".join(_strings(requests[0]))
    assert SEARCH_TOOL in offered or ("ToolSearch" in offered and SEARCH_TOOL in listed), offered
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
    assert any(c.method == "Search" and c.code == "OK" for c in new_calls), (
        f"no Search reached our server at {server.endpoint}: {new_calls}; the model got {result!r}"
    )
    entries = active_entries(claude.workspace.endpoint, claude.workspace.memory_id)
    assert claude.workspace.memory_id in result
    assert quotes_an_entry(result, entries, QUERY), result


def test_one_working_note_per_session(scripted: Scripted) -> None:
    problems = memory_problems(scripted.entries_after, scripted.head_before, COMPACT_SUMMARY)
    assert not problems, "\n".join(problems)


# -- fail open ------------------------------------------------------------------------------------


def _one_turn(host: ClaudeCode, workspace: Workspace, models: MockModels) -> ClaudeSession:
    models.reset()
    models.script(Text("Done with this turn."))
    session = host.session(workspace.repo, ["Say hello."], workspace.probe_log())
    answers = [r.get("result") for r in session.results]
    assert answers == ["Done with this turn."], session.events[-3:]
    return session


@pytest.mark.parametrize("pin", CLAUDE_PINS, ids=[p.version for p in CLAUDE_PINS])
def test_fail_open_with_the_server_stopped_or_hung(
    pin: Pin, tmp_path: Path, models: MockModels
) -> None:
    server = OurServer(tmp_path / "server")
    try:
        with prepared(tmp_path, server.endpoint, "claude") as workspace:
            host = ClaudeCode(pin, workspace.user, models.url)
            figures = measure(server, lambda: _one_turn(host, workspace, models))
    finally:
        server.stop()
    report = figures.report(f"Claude Code {pin.version}")
    print("\n" + report)
    assert not figures.problems(), "\n".join([*figures.problems(), report])
