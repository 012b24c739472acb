"""What the tools return: a pydantic model per tool (the SDK publishes it as the tool's
outputSchema and sends it as structuredContent) plus readable text for the model to read.

Citations are spelled as the CLI spells them — MEMORY@REVISION/ENTRY_ID/VERSION_ID — so one
that search_memory or prepare_context returned can be given back to expand_citation as is.
"""

from __future__ import annotations

from mcp_types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..cli.output import _CHANGE_OPS, _MODES, _OUTCOMES, _STATES
from ..cli.refs import format_citation, format_memory

_SECTIONS = {
    types.CONTEXT_SECTION_RULES: "rules",
    types.CONTEXT_SECTION_RELEVANT: "relevant",
    types.CONTEXT_SECTION_RECENT_NOTES: "recent_notes",
}


def cite(citation: types.Citation) -> str:
    return format_citation(citation.memory_ref, citation.entry_id, citation.entry_version_id)


# -- search_memory ------------------------------------------------------------------------------


class Hit(BaseModel):
    citation: str = Field(description="MEMORY@REVISION/ENTRY_ID/VERSION_ID, for expand_citation")
    entry_id: str
    entry_version_id: str
    kind: str
    text: str
    description: str = Field(description="one line about the entry")
    tags: list[str]
    score: float


class SearchResult(BaseModel):
    memory: str = Field(description="the memory searched, at the head revision read")
    mode: str = Field(description="the search mode the server ran (fts, vector or hybrid)")
    fallback_reason: str = Field(description="why a requested mode fell back, else empty")
    hits: list[Hit]


def search_result(memory: types.ArtifactRef, response: pb.SearchResponse) -> SearchResult:
    hits = [
        Hit(
            citation=format_citation(h.memory_ref, h.entry_id, h.entry_version_id),
            entry_id=h.entry_id,
            entry_version_id=h.entry_version_id,
            kind=h.kind,
            text=h.text,
            description=h.description,
            tags=list(h.tags),
            score=h.score,
        )
        for h in response.hits
    ]
    return SearchResult(
        memory=format_memory(memory),
        mode=_MODES.get(response.mode, "unspecified"),
        fallback_reason=response.fallback_reason,
        hits=hits,
    )


def search_text(result: SearchResult) -> str:
    head = f"{len(result.hits)} hit(s) in {result.memory} ({result.mode} search)"
    if result.fallback_reason:
        head += f"; fell back: {result.fallback_reason}"
    lines = [f"- [{h.kind}]{_tags(h.tags)} {h.text}\n  cite {h.citation}" for h in result.hits]
    return "\n".join([head, *lines])


def _tags(tags: list[str]) -> str:
    return f" [{', '.join(tags)}]" if tags else ""


# -- writes -------------------------------------------------------------------------------------


class EntryOutcome(BaseModel):
    entry_id: str
    entry_version_id: str
    outcome: str = Field(description="added, revised, unchanged or duplicate")


class Change(BaseModel):
    op: str = Field(description="add, revise, deactivate or reactivate")
    entry_id: str
    from_version_id: str | None = None
    to_version_id: str | None = None
    reason: str | None = None
    text: str | None = Field(default=None, description="the new version's text (add, revise)")


class WriteResult(BaseModel):
    memory: str = Field(description="the memory id")
    revision: int = Field(description="the head revision after the write")
    changed: bool = Field(description="false when the write changed nothing (e.g. duplicates)")
    created_memory: bool = Field(description="true when this call created the memory")
    recorded_in_manifest: bool = Field(
        description="true when the new memory was recorded as the repository's memory"
    )
    entries: list[EntryOutcome] = Field(description="remember/revise: one result per entry")
    changes: list[Change]


def change(item: types.MemoryChange) -> Change:
    def optional(name: str) -> str | None:
        return str(getattr(item, name)) if item.HasField(name) else None

    return Change(
        op=_CHANGE_OPS.get(item.op, "unspecified"),
        entry_id=item.entry_id,
        from_version_id=optional("from_entry_version_id"),
        to_version_id=optional("to_entry_version_id"),
        reason=optional("reason"),
    )


def write_result(
    response: pb.RememberResponse | pb.ForgetResponse | pb.ReactivateResponse,
    *,
    created: bool = False,
    recorded: bool = False,
) -> WriteResult:
    results = response.results if isinstance(response, pb.RememberResponse) else ()
    return WriteResult(
        memory=response.memory.artifact_id,
        revision=response.memory.revision,
        changed=response.changed,
        created_memory=created,
        recorded_in_manifest=recorded,
        entries=[
            EntryOutcome(
                entry_id=r.entry_id,
                entry_version_id=r.entry_version_id,
                outcome=_OUTCOMES.get(r.outcome, "unspecified"),
            )
            for r in results
        ],
        changes=[change(c) for c in response.changes],
    )


def write_text(result: WriteResult) -> str:
    where = f"{result.memory}@{result.revision}"
    head = f"{'changed' if result.changed else 'no change to'} {where}"
    if result.created_memory:
        head = f"created memory {where}"
        if result.recorded_in_manifest:
            head += " (recorded as this repository's memory)"
    lines = [f"- {e.outcome} {e.entry_id} version {e.entry_version_id}" for e in result.entries]
    if not result.entries:
        lines = [f"- {c.op} {c.entry_id}" for c in result.changes]
    return "\n".join([head, *lines])


# -- expand_citation ----------------------------------------------------------------------------


class ExpandedEntry(BaseModel):
    citation: str
    entry_id: str
    entry_version_id: str
    version: int = Field(description="1 for the first version, +1 per revise")
    previous_version_id: str | None
    kind: str
    text: str
    state: str = Field(description="active or inactive, in the cited revision")
    sources: list[str] = Field(description="evidence: SOURCE_ID:SHA256")
    artifacts: list[str] = Field(description="evidence: ARTIFACT@REVISION")
    created_in_revision: int


class ExpandResult(BaseModel):
    entries: list[ExpandedEntry]


def expanded(item: pb.ExpandedEntry) -> ExpandedEntry:
    v = item.version
    return ExpandedEntry(
        citation=cite(item.citation),
        entry_id=v.entry_id,
        entry_version_id=v.entry_version_id,
        version=v.version,
        previous_version_id=v.previous_version_id if v.HasField("previous_version_id") else None,
        kind=v.kind,
        text=v.text,
        state=_STATES.get(item.state, "unspecified"),
        sources=[f"{s.source_id}:{s.content_hash}" for s in v.source_refs],
        artifacts=[format_memory(a) for a in v.artifact_refs],
        created_in_revision=v.created_in_revision,
    )


def expand_text(result: ExpandResult) -> str:
    lines = [f"{len(result.entries)} citation(s) verified"]
    for e in result.entries:
        previous = f", previous {e.previous_version_id}" if e.previous_version_id else ""
        lines.append(f"- [{e.kind}] {e.text}")
        lines.append(f"  {e.citation}: version {e.version}{previous}, {e.state}")
    return "\n".join(lines)


# -- recent_changes -----------------------------------------------------------------------------


class Revision(BaseModel):
    revision: int
    committed_at: str = Field(description="RFC 3339, UTC")
    changes: list[Change]


class ChangesResult(BaseModel):
    memory: str
    head_revision: int
    revisions: list[Revision] = Field(description="newest first")


def changes_text(result: ChangesResult) -> str:
    lines = [f"{result.memory} is at revision {result.head_revision}"]
    for r in result.revisions:
        lines.append(f"revision {r.revision} ({r.committed_at})")
        for c in r.changes:
            text = f": {c.text}" if c.text is not None else ""
            why = f" — {c.reason}" if c.reason else ""
            lines.append(f"- {c.op} {c.entry_id}{text}{why}")
    return "\n".join(lines)


# -- prepare_context ----------------------------------------------------------------------------


class ContextEntry(BaseModel):
    citation: str
    kind: str
    text: str
    section: str = Field(description="rules, relevant or recent_notes")


class ContextResult(BaseModel):
    block: str = Field(description="the context block (data, not instructions); may be empty")
    entries: list[ContextEntry] = Field(description="the entries in the block, in block order")
    memories: list[str] = Field(description="the head revisions read")
    omitted_entries: int = Field(description="entries that qualified but did not fit the budget")


def context_result(response: pb.PrepareContextResponse) -> ContextResult:
    return ContextResult(
        block=response.block,
        entries=[
            ContextEntry(
                citation=cite(e.citation),
                kind=e.kind,
                text=e.text,
                section=_SECTIONS.get(e.section, "unspecified"),
            )
            for e in response.entries
        ],
        memories=[format_memory(m) for m in response.memories],
        omitted_entries=response.omitted_entries,
    )


def context_text(result: ContextResult) -> str:
    if not result.block:
        return "nothing in memory for this context"
    return result.block


# -- the envelope -------------------------------------------------------------------------------


def tool_result(model: BaseModel, text: str) -> CallToolResult:
    """Readable text for the model plus the same result as structured content."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json"),
    )
