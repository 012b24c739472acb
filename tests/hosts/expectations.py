"""What a scripted session of any host must leave in the memory: one place, so Claude Code,
Codex and Gemini CLI are judged by the same rules."""

from __future__ import annotations

import json
import re

from .memory_view import Entry

# The files `powercontext setup` writes into the repository: the agent did not change them.
SETUP_FILES = (".claude/", ".codex/", ".gemini/", ".mcp.json")
# The runtime's own keys as a text would start with them: "Turn report:…", "turn:…",
# "session:…", or "Turn <a host's turn id>"; and a report key ("report:" and a hash) anywhere.
INTERNAL_KEY = re.compile(
    r"^\s*((turn report|turn|report|session)\s*:|turn\s+[0-9a-f][0-9a-f-]{7,})", re.IGNORECASE
)
INTERNAL_REPORT_KEY = re.compile(r"\breport:[0-9a-f]{16,}")


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


def quotes_an_entry(result: str, entries: list[Entry], about: str) -> bool:
    """Whether a tool's result (as the model got it) holds the text of an entry about `about`,
    as it is or JSON-escaped inside the structured result."""
    texts = [e.text for e in entries if about in e.text]
    return any(t in result or json.dumps(t)[1:-1] in result for t in texts)
