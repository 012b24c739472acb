"""A Remember/EXTRACT answer in words: what the pipeline did and what it leaves to the user."""

from __future__ import annotations

from collections import Counter

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

_OUTCOMES = {
    pb.ENTRY_OUTCOME_ADDED: "added",
    pb.ENTRY_OUTCOME_REVISED: "revised",
    pb.ENTRY_OUTCOME_UNCHANGED: "unchanged",
    pb.ENTRY_OUTCOME_DUPLICATE: "duplicate",
}


def counts(response: pb.RememberResponse) -> dict[str, int]:
    tally = Counter(_OUTCOMES.get(r.outcome, "other") for r in response.results)
    return dict(sorted(tally.items()))


def summary(response: pb.RememberResponse) -> str:
    if not response.HasField("memory"):
        return "nothing to remember"
    head = f"{response.memory.artifact_id}@{response.memory.revision}"
    tally = ", ".join(f"{n} {what}" for what, n in counts(response).items()) or "no candidates"
    return f"{head} {'changed' if response.changed else 'unchanged'} ({tally})"


def single_forget(suggestion: types.Suggestion) -> types.EntryRef | None:
    """The entry a FORGET suggestion names, when it names exactly one (else None: report it)."""
    if suggestion.kind == types.SUGGESTION_KIND_FORGET and len(suggestion.entries) == 1:
        return suggestion.entries[0]
    return None


def describe(suggestion: types.Suggestion) -> str:
    kind = types.SuggestionKind.Name(suggestion.kind).removeprefix("SUGGESTION_KIND_").lower()
    entries = ", ".join(e.entry_id for e in suggestion.entries) or "no entry"
    return f"{kind} ({suggestion.adapter}): {suggestion.reason} [{entries}]"
