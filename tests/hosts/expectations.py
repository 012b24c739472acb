"""What a session of any host must show — its hooks, the context the model got, the memory
tool's call, what it leaves in the memory: one place, so Claude Code, Codex and Gemini CLI are
judged by the same rules. The checks a host has alone stay in its test module."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .hook_runs import HookRun, counts
from .memory_view import Entry
from .our_server import Call, OurServer
from .scripted import Scripted
from .workspace import Workspace

# The files `powercontext setup` writes into the repository: the agent did not change them.
SETUP_FILES = (".claude/", ".codex/", ".gemini/", ".mcp.json")
# The runtime's own keys as a text would start with them: "Turn report:…", "turn:…",
# "session:…", or "Turn <a host's turn id>"; and a report key ("report:" and a hash) anywhere.
INTERNAL_KEY = re.compile(
    r"^\s*((turn report|turn|report|session)\s*:|turn\s+[0-9a-f][0-9a-f-]{7,})", re.IGNORECASE
)
INTERNAL_REPORT_KEY = re.compile(r"\breport:[0-9a-f]{16,}")
# What the model asks the memory's search tool: a rule of AGENTS.md answers it.
QUERY = "make test"


def working_notes(entries: list[Entry], after_revision: int) -> list[Entry]:
    return [
        e for e in entries if e.kind == "working_note" and e.created_in_revision > after_revision
    ]


def changed_paths(entry: Entry) -> list[str]:
    """The paths an entry says were changed: its evidence's `changed_paths` and the
    `changed: a, b` part of its text."""
    paths: list[str] = []
    for evidence in entry.evidence:
        data = evidence.json()
        if isinstance(data, dict) and isinstance(data.get("changed_paths"), list):
            paths += [str(p) for p in data["changed_paths"]]
    for listed in re.findall(r"changed: ([^;]*)", entry.text):
        paths += [p.strip() for p in listed.split(",") if p.strip()]
    return paths


def memory_problems(entries: list[Entry], after_revision: int, compact_summary: str) -> list[str]:
    """Everything wrong with what a scripted session left (empty when all is right):
    more than one working note, the compaction summary stored, an internal key in a text,
    setup's own files reported as changed."""
    problems = []
    notes = working_notes(entries, after_revision)
    if len(notes) > 1:
        problems.append(f"{len(notes)} working notes for one session: {[n.text for n in notes]}")
    for entry in entries:
        if compact_summary in entry.text:
            problems.append(f"the compaction summary is an entry: {entry.text!r}")
        if INTERNAL_KEY.match(entry.text) or INTERNAL_REPORT_KEY.search(entry.text):
            problems.append(f"an internal key in an entry text: {entry.text!r}")
        setup = sorted({p for p in changed_paths(entry) if p.startswith(SETUP_FILES)})
        if setup:
            problems.append(f"setup's files {setup} reported as changed in: {entry.text!r}")
    return problems


def assert_no_memory_problems(scripted: Scripted[Any], compact_summary: str) -> None:
    """What the scripted session left in the memory has none of `memory_problems`."""
    problems = memory_problems(scripted.entries_after, scripted.head_before, compact_summary)
    assert not problems, "\n".join(problems)


def quotes_an_entry(result: str, entries: list[Entry], about: str) -> bool:
    """Whether a tool's result (as the model got it) holds the text of an entry about `about`,
    as it is or JSON-escaped inside the structured result."""
    texts = [e.text for e in entries if about in e.text]
    return any(t in result or json.dumps(t)[1:-1] in result for t in texts)


def rule_texts(entries: list[Entry]) -> list[str]:
    """The texts of the entries that are not working notes: the rules a context must carry."""
    return [e.text for e in entries if e.kind != "working_note"]


def hook_problems(installed: set[str], events: Sequence[str], runs: list[HookRun]) -> list[str]:
    """What is wrong with the hooks (empty when all is right): setup installed another set than
    the events whose hook does something, or a hook complained on stderr."""
    problems = []
    if installed != set(events):  # no hook that would only cost a process per event
        problems.append(f"setup installed {sorted(installed)}, not {events}")
    complaints = [(r.event, r.stderr) for r in runs if r.stderr.strip()]
    if complaints:
        problems.append(f"hooks complained on stderr: {complaints}")
    return problems


def subagent_and_compaction_problems(
    installed: set[str], events: Sequence[str], runs: list[HookRun], task: str, sent: list[str]
) -> list[str]:
    """What is wrong with a session that ran a subagent (given `task`) and then compacted
    (`sent`: every string the host sent the model): a hook that never ran, no request of the
    subagent's own, or no SessionStart after the compaction (its context comes back then)."""
    problems = []
    fired = counts(runs)
    if not all(fired[e] >= 1 for e in installed | set(events)):
        problems.append(f"not every hook ran: {dict(fired)}")
    if not any(task in text for text in sent):
        problems.append("no request of the subagent reached the model")
    sources = [r.payload.get("source") for r in runs if r.event == "SessionStart"]
    if sources[:1] != ["startup"] or "compact" not in sources:
        problems.append(f"SessionStart sources {sources}")
    return problems


def assert_context_sent(answered: dict[str, str], entries: list[Entry], sent: list[str]) -> None:
    """SessionStart's and UserPromptSubmit's hooks answered (`answered`: event -> context) with
    the memory's notes, a rule among them, and the host sent each context to the model as it
    is, in one of the strings `sent` of its request."""
    rules = rule_texts(entries)
    for event in ("SessionStart", "UserPromptSubmit"):
        context = answered.get(event, "")
        assert "<memory-notes>" in context, (event, context)
        assert any(rule in context for rule in rules), (event, context)
        assert any(context.strip() in s for s in sent), f"{event}'s context not in the request"


def assert_the_search_reached_our_server(
    result: str,
    calls: list[Call],
    server: OurServer,
    workspace: Workspace,
    entries: list[Entry] | None = None,
) -> None:
    """The memory tool's search reached OUR server (`calls`: what it answered meanwhile) and
    its `result`, as the model got it, names the workspace's memory and quotes one of its
    `entries` (by default, the memory's entries as they are now)."""
    assert any(c.method == "Search" and c.code == "OK" for c in calls), (
        f"no Search reached our server at {server.endpoint}: {calls}; the model got {result!r}"
    )
    if entries is None:
        entries = workspace.entries()
    assert workspace.memory_id in result
    assert quotes_an_entry(result, entries, QUERY), result
