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

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from powercontext_client.runtime import settings
from powercontext_client.runtime.findings import TRUST

from .codex import Codex, CodexRun, last_user_says, spawned_agents, user_says
from .expectations import memory_problems, quotes_an_entry
from .fail_open import measure
from .hook_runs import HookRun, counts, latency_table
from .memory_view import Entry, active_entries
from .mock_models import MockModels, Recorded, Text, ToolCall, texts
from .our_server import OurServer
from .pins import NODE_MODULES, Pin, pins
from .workspace import Workspace, prepared

CODEX_PINS = pins("codex")
NODE_BIN = NODE_MODULES / ".bin"  # where npm puts a `codex` command, as on a user's PATH
EVENTS = settings.HOOK_EVENTS  # the events whose hook does something
SUBAGENT_TASK = "Read the Makefile and list its targets."
SUBAGENT_FINDINGS = "The Makefile has two targets: test and check."
FIRST_ANSWER = "A subagent read the Makefile: test and check are its targets."
SECOND_ANSWER = "make check runs ruff and pytest."
COMPACT_SUMMARY = "Compaction summary 7f3a: the user asked which Makefile targets exist."
LAST_ANSWER = "Nothing else to check: run make test before you commit."
PROMPTS = ["Use a subagent to read the Makefile.", "What does make check run?", "Anything else?"]
# More than any model's window: Codex compacts before the next turn.
FULL_CONTEXT_TOKENS = 10_000_000
MCP_NAMESPACE = "mcp__powercontext"
QUERY = "make test"


@dataclass
class Host:
    pin: Pin
    codex: Codex
    workspace: Workspace
    hooks: list[dict[str, Any]]  # as Codex lists them after the user's trust


@pytest.fixture(scope="module", params=CODEX_PINS, ids=[p.version for p in CODEX_PINS])
def host(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    server: OurServer,
    models: MockModels,
) -> Iterator[Host]:
    pin: Pin = request.param
    directory = tmp_path_factory.mktemp(f"codex-{pin.version}")
    with prepared(directory, server.endpoint, "codex") as workspace:
        codex = Codex(pin, workspace.user, models.url)
        yield Host(pin, codex, workspace, codex.trust(workspace.repo))


@dataclass
class Scripted:
    runs: list[CodexRun]
    requests: list[Recorded]
    head_before: int
    entries_after: list[Entry]

    @property
    def hook_runs(self) -> list[HookRun]:
        return [hook for run in self.runs for hook in run.hook_runs]


def _parent(body: Any) -> bool:
    return not user_says(SUBAGENT_TASK)(body)


@pytest.fixture(scope="module")
def scripted(host: Host, models: MockModels) -> Iterator[Scripted]:
    models.reset()
    models.script(
        # The subagent runs beside its parent: its reply is routed to it, the parent's to the
        # parent, whichever asks first.
        Text(SUBAGENT_FINDINGS, when=user_says(SUBAGENT_TASK)),
        Text(COMPACT_SUMMARY, when=last_user_says("summary")),
        ToolCall(
            "spawn_agent", {"message": SUBAGENT_TASK}, namespace="multi_agent_v1", when=_parent
        ),
        ToolCall(
            "wait_agent",
            lambda body: {"targets": spawned_agents(body), "timeout_ms": 30000},
            namespace="multi_agent_v1",
            when=_parent,
        ),
        Text(FIRST_ANSWER, when=_parent),
        Text(SECOND_ANSWER, when=_parent, tokens=FULL_CONTEXT_TOKENS),
        Text(LAST_ANSWER, when=_parent),
    )
    workspace = host.workspace
    before = workspace.head()
    runs = [host.codex.run(workspace.repo, PROMPTS[0], workspace.probe_log())]
    for prompt in PROMPTS[1:]:
        runs.append(
            host.codex.run(workspace.repo, prompt, workspace.probe_log(), resume=runs[0].thread_id)
        )
    hooks = [hook for run in runs for hook in run.hook_runs]
    print(f"\nCodex {host.pin.version} scripted session: {sum(r.seconds for r in runs):.1f} s")
    for event, figures in latency_table(hooks).items():
        print(f"  {event}: {figures}")
    entries = active_entries(workspace.endpoint, workspace.memory_id)
    yield Scripted(runs, models.model_requests(), before, entries)


def test_the_pinned_version_runs(host: Host) -> None:
    assert host.codex.version() == host.pin.version == host.pin.installed_version()


def test_every_installed_hook_is_trusted_and_fires(host: Host, scripted: Scripted) -> None:
    """Every check runs and every problem is listed: a host upgrade that drifts shows all of
    its drift at once."""
    listed = {hook["eventName"][0].upper() + hook["eventName"][1:] for hook in host.hooks}
    fired = counts(scripted.hook_runs)
    sources = [r.payload.get("source") for r in scripted.hook_runs if r.event == "SessionStart"]
    problems = []
    if listed != set(EVENTS):  # no hook that would only cost a process per event
        problems.append(f"setup installed {sorted(listed)}, not {EVENTS}")
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
    if answers != [FIRST_ANSWER, SECOND_ANSWER, LAST_ANSWER]:
        problems.append(f"the turns' answers: {answers}")
    if not all(fired[e] >= 1 for e in listed | set(EVENTS)):
        problems.append(f"not every hook ran: {dict(fired)}")
    if fired["SessionStart"] < len(PROMPTS):
        problems.append(f"SessionStart per exec: {dict(fired)}")
    # The subagent ran: its own request reached the model.
    if not any(SUBAGENT_TASK in text for r in scripted.requests for text in _strings(r)):
        problems.append("no request of the subagent reached the model")
    # Codex compacted, and SessionStart fired after it (its context comes back).
    if sources[:1] != ["startup"] or "compact" not in sources:
        problems.append(f"SessionStart sources {sources}")
    complaints = [(r.event, r.stderr) for r in scripted.hook_runs if r.stderr.strip()]
    if complaints:
        problems.append(f"hooks complained on stderr: {complaints}")
    assert not problems, "\n".join(problems)


def _strings(request: Recorded) -> list[str]:
    return list(texts(request.body.get("input", [])))


def test_the_memory_context_reaches_the_model(scripted: Scripted) -> None:
    first_turn = scripted.runs[0].hook_runs
    answered: dict[str, str] = {}
    for run in first_turn:
        if not run.payload.get("agent_id"):  # the parent's, not the subagent's
            answered.setdefault(run.event, run.context)
    rules = [e.text for e in scripted.entries_after if e.kind != "working_note"]
    first = _strings(scripted.requests[0])
    for event in ("SessionStart", "UserPromptSubmit"):
        context = answered.get(event, "")
        assert "<memory-notes>" in context, (event, context)
        assert any(rule in context for rule in rules), (event, context)
        assert any(context.strip() in s for s in first), f"{event}'s context not in the request"


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
            {"query": QUERY},
            namespace=MCP_NAMESPACE,
            when=lambda body: _offered(body).get("search_memory") == MCP_NAMESPACE,
        ),
        ToolCall(flat, {"query": QUERY}, when=lambda body: flat in _offered(body)),
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
    assert any(c.method == "Search" and c.code == "OK" for c in new_calls), (
        f"no Search reached our server at {server.endpoint}: {new_calls}; the model got {result!r}"
    )
    entries = active_entries(host.workspace.endpoint, host.workspace.memory_id)
    assert host.workspace.memory_id in result
    assert quotes_an_entry(result, entries, QUERY), result


def test_one_working_note_per_session(scripted: Scripted) -> None:
    problems = memory_problems(scripted.entries_after, scripted.head_before, COMPACT_SUMMARY)
    assert not problems, "\n".join(problems)


# -- fail open ------------------------------------------------------------------------------------


def _one_turn(codex: Codex, workspace: Workspace, models: MockModels) -> CodexRun:
    models.reset()
    models.script(Text("Done with this turn."))
    run = codex.run(workspace.repo, "Say hello.", workspace.probe_log())
    assert run.completed and run.messages == ["Done with this turn."], (
        run.stderr[-2000:],
        run.events,
    )
    return run


@pytest.mark.parametrize("pin", CODEX_PINS, ids=[p.version for p in CODEX_PINS])
def test_fail_open_with_the_server_stopped_or_hung(
    pin: Pin, tmp_path: Path, models: MockModels
) -> None:
    server = OurServer(tmp_path / "server")
    try:
        with prepared(tmp_path, server.endpoint, "codex") as workspace:
            codex = Codex(pin, workspace.user, models.url)
            codex.trust(workspace.repo)
            figures = measure(server, lambda: _one_turn(codex, workspace, models))
    finally:
        server.stop()
    report = figures.report(f"Codex {pin.version}")
    print("\n" + report)
    assert not figures.problems(), "\n".join([*figures.problems(), report])


# -- doctor ---------------------------------------------------------------------------------------


def test_doctor_says_codex_skips_untrusted_hooks_and_agrees_once_trusted(
    tmp_path: Path, server: OurServer, models: MockModels
) -> None:
    """`powercontext doctor codex` asks Codex itself (its app-server) whether our hooks are
    trusted: before the user's one-time trust it fails with the trust class and says what to
    do; after it, nothing fails."""
    pin = CODEX_PINS[0]
    with prepared(tmp_path, server.endpoint, "codex") as workspace:
        codex = Codex(pin, workspace.user, models.url)
        env = {**codex.env, "PATH": f"{NODE_BIN}{os.pathsep}{codex.env['PATH']}"}

        def doctor() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                ["powercontext", "doctor", "codex"],
                cwd=workspace.repo,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )

        before = doctor()
        assert before.returncode == TRUST, before.stdout + before.stderr
        assert f"FAIL codex trust: Codex does not trust {workspace.repo}" in before.stdout
        codex.trust(workspace.repo)
        after = doctor()
        assert after.returncode == 0, after.stdout + after.stderr
        assert "ok   codex trust: Codex trusts the project and our hooks" in after.stdout
        assert f"ok   codex version: codex {pin.version} (tested)" in after.stdout
