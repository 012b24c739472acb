"""Codex, every pinned version, for real: `codex exec` against the mock model, in a workspace
bootstrapped and set up with `powercontext setup codex --endpoint`, trusted by the user once
(the folder, then "Trust all and continue" on the hooks; codex.py).

The scripted session (one thread, three `exec` turns): a turn in which the model runs a
subagent (spawn_agent, then wait_agent), a turn whose answer fills the context window (the
mock reports a huge input), and a last turn, before which Codex compacts on its own. Then
what the user gets from it: every hook setup installed ran, with no deprecation warning; the
memory's context reached the model; the memory tools are offered and a call reaches OUR
server; the memory holds one working note for the session; and, with the server stopped or
hung, a turn still runs and the hooks give up in time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from powercontext_client.runtime import settings
from powercontext_client.runtime.findings import TRUST

from . import expectations, fail_open, subagent_session
from .codex import Codex, CodexRun, last_user_says, spawned_agents, user_says
from .hook_runs import counts
from .launch import doctor
from .mock_models import MockModels, Recorded, Text, ToolCall, texts
from .our_server import OurServer
from .per_pin import host_per_pin
from .pins import Pin, pins, versions
from .scripted import Scripted, play
from .workspace import Workspace, prepared

CODEX_PINS = pins("codex")
EVENTS = settings.HOOK_EVENTS  # the events whose hook does something
SECOND_ANSWER = "make check runs ruff and pytest."
PROMPTS = ["Use a subagent to read the Makefile.", "What does make check run?", "Anything else?"]
# More than any model's window: Codex compacts before the next turn.
FULL_CONTEXT_TOKENS = 10_000_000
MCP_NAMESPACE = "mcp__powercontext"


@dataclass
class Host:
    pin: Pin
    codex: Codex
    workspace: Workspace
    hooks: list[dict[str, Any]]  # as Codex lists them after the user's trust


def _start(pin: Pin, workspace: Workspace, models: MockModels) -> Host:
    """Codex pointed at the mock, and the user's one-time trust given."""
    codex = Codex(pin, workspace.user, models.url)
    return Host(pin, codex, workspace, codex.trust(workspace.repo))


host = host_per_pin(CODEX_PINS, _start)


def _parent(body: Any) -> bool:
    return not user_says(subagent_session.TASK)(body)


@pytest.fixture(scope="module")
def scripted(host: Host, models: MockModels, server: OurServer) -> Scripted[CodexRun]:
    models.reset()
    models.script(
        # The subagent runs beside its parent: its reply is routed to it, the parent's to the
        # parent, whichever asks first.
        Text(subagent_session.FINDINGS, when=user_says(subagent_session.TASK)),
        Text(subagent_session.COMPACT_SUMMARY, when=last_user_says("summary")),
        ToolCall(
            "spawn_agent",
            {"message": subagent_session.TASK},
            namespace="multi_agent_v1",
            when=_parent,
        ),
        ToolCall(
            "wait_agent",
            lambda body: {"targets": spawned_agents(body), "timeout_ms": 30000},
            namespace="multi_agent_v1",
            when=_parent,
        ),
        Text(subagent_session.FIRST_ANSWER, when=_parent),
        Text(SECOND_ANSWER, when=_parent, tokens=FULL_CONTEXT_TOKENS),
        Text(subagent_session.LAST_ANSWER, when=_parent),
    )
    return play(host, models, server, lambda: host.codex.session(host.workspace, PROMPTS))


def test_the_pinned_version_runs(host: Host) -> None:
    assert host.codex.version() == host.pin.version == host.pin.installed_version()


def test_every_installed_hook_is_trusted_and_fires(
    host: Host, scripted: Scripted[CodexRun]
) -> None:
    """Every check runs and every problem is listed: a host upgrade that drifts shows all of
    its drift at once."""
    listed = {hook["eventName"][0].upper() + hook["eventName"][1:] for hook in host.hooks}
    fired = counts(scripted.hook_runs)
    sent = [text for r in scripted.requests for text in _strings(r)]
    problems = [
        *expectations.hook_problems(listed, EVENTS, scripted.hook_runs),
        *expectations.subagent_and_compaction_problems(
            listed, EVENTS, scripted.hook_runs, subagent_session.TASK, sent
        ),
    ]
    if {hook["trustStatus"] for hook in host.hooks} != {"trusted"}:
        problems.append(f"not all trusted: {host.hooks}")
    for run in scripted.runs:
        if not run.completed:
            problems.append(
                f"a turn failed: {run.returncode} {run.stderr[-2000:]} {run.events[-3:]}"
            )
        # What the user sees on every run: no warning about the settings setup wrote.
        warnings = [e for e in run.errors if "hook" in e.lower() or "mcp" in e.lower()]
        if warnings:
            problems.append(f"Codex warned: {warnings}")
    answers = [run.messages[-1] if run.messages else "" for run in scripted.runs]
    if answers != [subagent_session.FIRST_ANSWER, SECOND_ANSWER, subagent_session.LAST_ANSWER]:
        problems.append(f"the turns' answers: {answers}")
    if fired["SessionStart"] < len(PROMPTS):
        problems.append(f"SessionStart per exec: {dict(fired)}")
    assert not problems, "\n".join(problems)


def _strings(request: Recorded) -> list[str]:
    return list(texts(request.body.get("input", [])))


def test_the_memory_context_reaches_the_model(scripted: Scripted[CodexRun]) -> None:
    answered: dict[str, str] = {}
    for run in scripted.runs[0].hook_runs:  # the first turn's
        if not run.payload.get("agent_id"):  # the parent's, not the subagent's
            answered.setdefault(run.event, run.context)
    expectations.assert_context_sent(
        answered, scripted.entries_after, _strings(scripted.requests[0])
    )


def _offered(body: Any) -> dict[str, str]:
    """The memory tools the request offers: name -> namespace ("" for a plain function)."""
    offered = {}
    for tool in body.get("tools", []):
        if tool.get("type") == "namespace" and tool.get("name") == MCP_NAMESPACE:
            offered.update({t["name"]: MCP_NAMESPACE for t in tool.get("tools", [])})
        elif str(tool.get("name", "")).startswith(MCP_NAMESPACE + "__"):
            offered[tool["name"]] = ""
    return offered


def test_memory_tools_are_offered_and_a_call_reaches_our_server(
    host: Host, model: MockModels, server: OurServer
) -> None:
    flat = f"{MCP_NAMESPACE}__search_memory"
    model.script(
        ToolCall(
            "search_memory",
            {"query": expectations.QUERY},
            namespace=MCP_NAMESPACE,
            when=lambda body: _offered(body).get("search_memory") == MCP_NAMESPACE,
        ),
        ToolCall(flat, {"query": expectations.QUERY}, when=lambda body: flat in _offered(body)),
        Text("make test is the validation step."),
    )
    calls_before = len(server.calls())
    run = host.codex.run(
        host.workspace.repo, "What do we run to validate?", host.workspace.probe_log()
    )
    assert run.completed, (run.returncode, run.stderr[-2000:])
    requests = model.model_requests()
    offered = _offered(requests[0].body)
    assert "search_memory" in offered or flat in offered, (
        f"no memory tool offered: {[t.get('name') for t in requests[0].body.get('tools', [])]}"
    )
    (call,) = [r for r in requests if isinstance(r.reply, ToolCall)]
    outputs = [
        item
        for request in requests[requests.index(call) + 1 :]
        for item in request.body.get("input", [])
        if item.get("type") == "function_call_output" and item.get("call_id") == call.call_id
    ]
    assert outputs, "the tool's result never came back to the model"
    result = "\n".join(texts(outputs[0].get("output")))
    new_calls = server.calls()[calls_before:]
    expectations.assert_the_search_reached_our_server(result, new_calls, server, host.workspace)


def test_one_working_note_per_session(scripted: Scripted[CodexRun]) -> None:
    expectations.assert_no_memory_problems(scripted, subagent_session.COMPACT_SUMMARY)


# -- fail open ------------------------------------------------------------------------------------


def _one_turn(host: Host) -> CodexRun:
    run = host.codex.run(host.workspace.repo, fail_open.PROMPT, host.workspace.probe_log())
    assert run.completed and run.messages == [fail_open.ANSWER], (run.stderr[-2000:], run.events)
    return run


@pytest.mark.parametrize("pin", CODEX_PINS, ids=versions(CODEX_PINS))
def test_fail_open_with_the_server_stopped_or_hung(pin: Pin, tmp_path: Path) -> None:
    fail_open.assert_fails_open_apart(tmp_path, pin, _start, _one_turn)


# -- doctor ---------------------------------------------------------------------------------------


def test_doctor_says_codex_skips_untrusted_hooks_and_agrees_once_trusted(
    tmp_path: Path, server: OurServer, models: MockModels
) -> None:
    """`powercontext doctor codex` asks Codex itself (its app-server) whether our hooks are
    trusted: before the user's one-time trust it fails with the trust class and says what to
    do; after it, nothing fails."""
    pin = CODEX_PINS[0]
    with prepared(tmp_path, server.endpoint, pin.setup_name) as workspace:
        codex = Codex(pin, workspace.user, models.url)
        before = doctor(pin, codex.env, workspace.repo)
        assert before.returncode == TRUST, before.stdout + before.stderr
        assert f"FAIL codex trust: Codex does not trust {workspace.repo}" in before.stdout
        codex.trust(workspace.repo)
        after = doctor(pin, codex.env, workspace.repo)
        assert after.returncode == 0, after.stdout + after.stderr
        assert "ok   codex trust: Codex trusts the project and our hooks" in after.stdout
        assert f"ok   codex version: codex {pin.version} (tested)" in after.stdout
