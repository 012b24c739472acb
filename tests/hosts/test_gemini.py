"""Gemini CLI, every pinned version, for real: `gemini -p` against the mock model, in a workspace
bootstrapped and set up with `powercontext setup gemini --endpoint`, whose folder the user
trusted once in Gemini's own dialog (gemini.py).

The scripted session (one session, three `gemini -p` turns, the next ones with `--resume`): a
first turn in which the model calls the memory's search_memory tool, then two more. Then what
the user gets from it: every hook setup installed ran, and Gemini named them once as new
project hooks; the memory's context reached the model; the memory tools are offered and the
call reached OUR server, its result the model; the memory holds one working note for the
session; doctor failed on the untrusted folder and passes once it is trusted; and, with the
server stopped or hung, a turn still runs and the hooks give up in time.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from powercontext_client.runtime import settings
from powercontext_client.runtime.findings import TRUST

from . import expectations, fail_open
from .fail_open import FailOpen
from .gemini import NEW_HOOKS_WARNING, NO_RELAUNCH, Gemini, GeminiRun, escaped
from .gemini_wire import contents, function_declarations
from .hook_runs import counts
from .launch import doctor
from .mock_models import MockModels, Recorded, Text, ToolCall, texts
from .our_server import OurServer
from .per_pin import host_per_pin
from .pins import Pin, pins
from .scripted import Scripted, play
from .workspace import Workspace

GEMINI_PINS = pins("gemini-cli")
EVENTS = settings.GEMINI_HOOK_EVENTS  # SessionStart, BeforeAgent, AfterAgent
SEARCH_TOOL = "mcp_powercontext_search_memory"  # Gemini names MCP tools mcp_<server>_<tool>
PROMPTS = ["What do we run to validate?", "What does make check run?", "Anything else?"]
ANSWERS = [
    "make test is the validation step.",
    "make check runs ruff and pytest.",
    "Nothing else to check: run make test before you commit.",
]
# Gemini compacts nothing in this session: no entry can hold a summary of it.
NO_SUMMARY = "No compaction summary in a Gemini session 5e1d."


@dataclass
class Host:
    pin: Pin
    gemini: Gemini
    workspace: Workspace
    dialog: str  # Gemini's trust dialog, as the user saw it
    doctor_untrusted: subprocess.CompletedProcess[str]
    doctor_trusted: subprocess.CompletedProcess[str]


def _doctor(gemini: Gemini, workspace: Workspace) -> subprocess.CompletedProcess[str]:
    """Doctor starts the pinned `gemini` as every run here does, without its relaunch."""
    return doctor(gemini.pin, {**gemini.env, NO_RELAUNCH: "true"}, workspace.repo)


def _start(pin: Pin, workspace: Workspace, models: MockModels) -> Host:
    """Gemini pointed at the mock, with doctor asked before and after the user's one-time
    trust in Gemini's own dialog."""
    gemini = Gemini(pin, workspace.user, models.url)
    untrusted = _doctor(gemini, workspace)
    dialog = gemini.trust(workspace.repo)
    return Host(pin, gemini, workspace, dialog, untrusted, _doctor(gemini, workspace))


host = host_per_pin(GEMINI_PINS, _start)


def _offers(name: str) -> Callable[[Any], bool]:
    return lambda body: name in function_declarations(body)


@pytest.fixture(scope="module")
def scripted(host: Host, models: MockModels, server: OurServer) -> Scripted[GeminiRun]:
    models.reset()
    models.script(
        ToolCall(SEARCH_TOOL, {"query": expectations.QUERY}, when=_offers(SEARCH_TOOL)),
        *(Text(answer) for answer in ANSWERS),
    )
    return play(host, models, server, lambda: host.gemini.session(host.workspace, PROMPTS))


def test_the_pinned_version_runs(host: Host) -> None:
    assert host.gemini.version() == host.pin.version == host.pin.installed_version()


def test_every_installed_hook_fires(host: Host, scripted: Scripted[GeminiRun]) -> None:
    """Every check runs and every problem is listed: a host upgrade that drifts shows all of
    its drift at once."""
    installed = host.workspace.installed_hooks(".gemini/settings.json")
    fired = counts(scripted.hook_runs)
    sources = [r.payload.get("source") for r in scripted.hook_runs if r.event == "SessionStart"]
    problems = expectations.hook_problems(installed, EVENTS, scripted.hook_runs)
    # The user's one-time trust: the dialog showed what the folder would load.
    if "MCP Servers (1)" not in host.dialog:
        problems.append(f"the trust dialog did not show our MCP server: {host.dialog}")
    for run in scripted.runs:
        if not run.completed:
            problems.append(f"a turn failed: {run.returncode} {run.stderr[-2000:]}")
    answers = [run.answer for run in scripted.runs]
    if answers != ANSWERS:
        problems.append(f"the turns' answers: {answers}")
    if {run.session_id for run in scripted.runs} != {scripted.runs[0].session_id}:
        problems.append("the turns were not one session")
    if not all(fired[e] == len(PROMPTS) for e in installed | set(EVENTS)):
        problems.append(f"not every hook ran once per turn: {dict(fired)}")
    if sources != ["startup", "resume", "resume"]:
        problems.append(f"SessionStart sources {sources}")
    # What the user sees: Gemini names the new project hooks once (the first run), then never.
    warned = [NEW_HOOKS_WARNING in run.stderr for run in scripted.runs]
    if warned != [True, False, False]:
        problems.append(f"the new-hooks warning per run: {warned}")
    if "powercontext" not in scripted.runs[0].stderr:
        problems.append(f"the warning does not name our hooks: {scripted.runs[0].stderr[-2000:]}")
    assert not problems, "\n".join(problems)


def _strings(request: Recorded) -> list[str]:
    return list(texts(contents(request.body)))


def _wrapped(context: str) -> str:
    return f"<hook_context>{escaped(context)}</hook_context>"


def test_the_memory_context_reaches_the_model(scripted: Scripted[GeminiRun]) -> None:
    """Gemini wraps a hook's context in <hook_context> and escapes its `<` and `>`. Headless,
    SessionStart fires on every turn and its context goes before the prompt; BeforeAgent's goes
    after it, and is left out when it would repeat SessionStart's block word for word."""
    rules = expectations.rule_texts(scripted.entries_after)
    sent = [text for request in scripted.requests for text in _strings(request)]
    added = []
    for run, prompt in zip(scripted.runs, PROMPTS, strict=True):
        answered = {r.event: r.context for r in run.hook_runs}
        start = answered.get("SessionStart", "")
        assert "<memory-notes>" in start and any(rule in start for rule in rules), start
        assert f"{_wrapped(start)}\n\n{prompt}" in sent, f"no SessionStart context for {prompt!r}"
        extra = answered.get("BeforeAgent", "")
        assert extra.strip() != start.strip(), f"BeforeAgent repeated SessionStart's block: {extra}"
        if extra:
            assert _wrapped(extra) in sent, f"BeforeAgent's context for {prompt!r} not sent"
            added.append(extra)
    assert any(any(rule in a for rule in rules) for a in added), (
        f"BeforeAgent added nothing: {added}"
    )
    # Headless, Gemini hands BeforeAgent the prompt with SessionStart's context before it
    # (events.py takes the user's words from behind it).
    first = scripted.runs[0].hook_runs
    start = next(r.context for r in first if r.event == "SessionStart")
    prompts = [r.payload["prompt"] for r in first if r.event == "BeforeAgent"]
    assert prompts == [f"{_wrapped(start)}\n\n{PROMPTS[0]}"], prompts


def test_memory_tools_are_offered_and_a_call_reaches_our_server(
    host: Host, scripted: Scripted[GeminiRun], server: OurServer
) -> None:
    offered = function_declarations(scripted.requests[0].body)
    assert SEARCH_TOOL in offered, f"no memory tool offered: {offered}"
    (call,) = [r for r in scripted.requests if isinstance(r.reply, ToolCall)]
    responses = [
        part["functionResponse"]
        for request in scripted.requests[scripted.requests.index(call) + 1 :]
        for content in contents(request.body)
        for part in content.get("parts", [])
        if isinstance(part, dict)
        and isinstance(part.get("functionResponse"), dict)
        and part["functionResponse"].get("id") == call.function_call_id
    ]
    assert responses, "the tool's result never came back to the model"
    result = "\n".join(texts(responses[0].get("response")))
    assert "error" not in responses[0].get("response", {}), result
    expectations.assert_the_search_reached_our_server(
        result, scripted.calls, server, host.workspace, scripted.entries_after
    )
    # What the user sees: the tool ran and succeeded.
    assert [r.get("status") for r in scripted.runs[0].tool_results] == ["success"]


def test_one_working_note_per_session(scripted: Scripted[GeminiRun]) -> None:
    expectations.assert_no_memory_problems(scripted, NO_SUMMARY)
    (note,) = expectations.working_notes(scripted.entries_after, scripted.head_before)
    assert ANSWERS[-1] in note.text, note.text  # revised by the last turn


# -- doctor ---------------------------------------------------------------------------------------


def test_doctor_says_gemini_ignores_an_untrusted_folder_and_agrees_once_trusted(
    host: Host,
) -> None:
    """`powercontext doctor gemini` reads Gemini's own record of the user's trust: before the
    dialog it fails with the trust class and says what to do; after it, nothing fails."""
    before, after = host.doctor_untrusted, host.doctor_trusted
    repo = host.workspace.repo
    assert before.returncode == TRUST, before.stdout + before.stderr
    assert f"FAIL gemini trust: Gemini does not trust {repo}" in before.stdout
    assert 'choose "Trust folder"' in before.stdout
    assert after.returncode == 0, after.stdout + after.stderr
    assert f"ok   gemini trust: Gemini trusts {repo}" in after.stdout
    assert "ok   gemini hooks:" in after.stdout and "ok   gemini mcp:" in after.stdout
    assert f"ok   gemini version: gemini {host.pin.version} (tested)" in after.stdout


# -- fail open ------------------------------------------------------------------------------------


def _one_turn(host: Host) -> GeminiRun:
    run = host.gemini.run(host.workspace.repo, fail_open.PROMPT, host.workspace.probe_log())
    assert run.completed and run.answer == fail_open.ANSWER, (run.stderr[-2000:], run.events)
    return run


@pytest.fixture(scope="module")
def failed_open(
    host: Host, scripted: Scripted[GeminiRun], server: OurServer, models: MockModels
) -> FailOpen:
    """On the module's workspace, after the scripted session and doctor's runs (it stops the
    module's server): a second workspace would cost a bootstrap and another trust dialog."""
    return fail_open.measure(server, models, lambda: _one_turn(host))


def test_fail_open_with_the_server_stopped_or_hung(host: Host, failed_open: FailOpen) -> None:
    fail_open.assert_fails_open(failed_open, host.pin.title)
