"""What an idempotent EXTRACT records besides its results: the candidates it wrote and the
suggestions it left to the caller, so that a retry with the same request id gets them back
(a runtime applies a FORGET suggestion from the answer; losing it on a retry would lose the
user's instruction)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..domain.entry_input import EntryInput
from ..domain.lifecycle import EntryRef
from ..domain.models import ArtifactRef, SourceRef
from .port import Suggestion, SuggestionKind


def _entry_ref(ref: EntryRef) -> list[str]:
    return [ref.entry_id, ref.entry_version_id]


def _source_refs(refs: Sequence[SourceRef]) -> list[list[str]]:
    return [[r.source_id, r.content_hash] for r in refs]


def encode(candidates: Sequence[EntryInput], suggestions: Sequence[Suggestion]) -> str:
    """ "" when there is nothing to keep (every write but EXTRACT)."""
    if not candidates and not suggestions:
        return ""
    data: dict[str, Any] = {
        "candidates": [
            {
                "target": None if c.target is None else _entry_ref(c.target),
                "kind": c.kind,
                "text": c.text,
                "sources": _source_refs(c.sources),
                "artifacts": [[a.artifact_id, a.revision] for a in c.artifacts],
                "reason": c.reason,
                "description": c.description,
                "tags": list(c.tags),
            }
            for c in candidates
        ],
        "suggestions": [
            {
                "kind": s.kind.value,
                "entries": [_entry_ref(e) for e in s.entries],
                "adapter": s.adapter,
                "reason": s.reason,
                "sources": _source_refs(s.sources),
            }
            for s in suggestions
        ],
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def decode(text: str) -> tuple[tuple[EntryInput, ...], tuple[Suggestion, ...]]:
    if not text:
        return (), ()
    data = json.loads(text)
    candidates = tuple(
        EntryInput(
            None if c["target"] is None else EntryRef(*c["target"]),
            c["kind"],
            c["text"],
            tuple(SourceRef(*r) for r in c["sources"]),
            tuple(ArtifactRef(a, int(rev)) for a, rev in c["artifacts"]),
            c["reason"],
            # absent in records written before descriptions
            c.get("description"),
            tuple(c.get("tags", ())),
        )
        for c in data["candidates"]
    )
    suggestions = tuple(
        Suggestion(
            SuggestionKind(s["kind"]),
            tuple(EntryRef(*e) for e in s["entries"]),
            s["adapter"],
            s["reason"],
            tuple(SourceRef(*r) for r in s["sources"]),
        )
        for s in data["suggestions"]
    )
    return candidates, suggestions
