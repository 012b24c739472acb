"""Wire <-> domain conversion, and nothing else.

Requests become the plain domain values MemoryService takes; results become response messages.
The only errors raised here are for wire values the domain cannot represent (an enum number
this build does not know), named by field like every other input error.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Generic, TypeVar

from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from powercontext.memory.v1 import memory_service_pb2 as pb
from powercontext.memory.v1 import types_pb2 as types

from ..api import (
    NO_FILTER,
    Capabilities,
    EntryFilter,
    EntryInput,
    EntryStatus,
    ExpandedEntry,
    Hit,
    MemoryView,
    RememberMode,
    RestoreOperation,
    RevisionChanges,
    SearchMode,
    SearchResult,
    TagMatch,
    WriteResult,
)
from ..candidates import Suggestion, SuggestionKind
from ..context import PreparedContext
from ..domain.context_block import Section
from ..domain.errors import InvalidArgumentError
from ..domain.lifecycle import EntryOutcome, EntryRef, EntryResult, OrganizeStep
from ..domain.models import (
    MANIFEST_FORMAT,
    MEMORY_SCHEMA,
    ArtifactRef,
    ChangeOp,
    Citation,
    EntryState,
    EntryVersion,
    Lineage,
    ManifestEntry,
    MemoryChange,
    MemoryContent,
    Source,
    SourceRef,
)
from ..follow import Progress

E = TypeVar("E", bound=enum.Enum)


class EnumTable(Generic[E]):
    """One domain enum <-> one proto enum. `aliases` are extra wire values accepted on input
    (e.g. UNSPECIFIED meaning AUTO); they are never produced on output."""

    def __init__(self, pairs: Mapping[E, int], aliases: Mapping[int, E] | None = None) -> None:
        self._to_pb = dict(pairs)
        self._from_pb = {number: member for member, number in pairs.items()}
        self._from_pb.update(aliases or {})

    def to_pb(self, member: E) -> Any:  # a generated enum value (typed per enum in the stubs)
        return self._to_pb[member]

    def from_pb(self, number: int, field: str) -> E:
        member = self._from_pb.get(number)
        if member is None:
            raise InvalidArgumentError(field, f"unsupported enum value {number}")
        return member


CHANGE_OPS: EnumTable[ChangeOp] = EnumTable(
    {
        ChangeOp.ADD: types.CHANGE_OP_ADD,
        ChangeOp.REVISE: types.CHANGE_OP_REVISE,
        ChangeOp.DEACTIVATE: types.CHANGE_OP_DEACTIVATE,
        ChangeOp.REACTIVATE: types.CHANGE_OP_REACTIVATE,
    }
)

ENTRY_STATES: EnumTable[EntryState] = EnumTable(
    {
        EntryState.ACTIVE: types.ENTRY_STATE_ACTIVE,
        EntryState.INACTIVE: types.ENTRY_STATE_INACTIVE,
    }
)

SEARCH_MODES: EnumTable[SearchMode] = EnumTable(
    {
        SearchMode.AUTO: types.SEARCH_MODE_AUTO,
        SearchMode.FTS: types.SEARCH_MODE_FTS,
        SearchMode.VECTOR: types.SEARCH_MODE_VECTOR,
        SearchMode.HYBRID: types.SEARCH_MODE_HYBRID,
    },
    aliases={types.SEARCH_MODE_UNSPECIFIED: SearchMode.AUTO},
)

REMEMBER_MODES: EnumTable[RememberMode] = EnumTable(
    {
        RememberMode.AUTO: pb.REMEMBER_MODE_AUTO,
        RememberMode.APPEND: pb.REMEMBER_MODE_APPEND,
        RememberMode.EXTRACT: pb.REMEMBER_MODE_EXTRACT,
    },
    aliases={pb.REMEMBER_MODE_UNSPECIFIED: RememberMode.AUTO},
)

ORGANIZE_STEPS: EnumTable[OrganizeStep] = EnumTable(
    {
        OrganizeStep.DEDUPE: pb.ORGANIZE_STEP_DEDUPE,
        OrganizeStep.NORMALIZE: pb.ORGANIZE_STEP_NORMALIZE,
    }
)

ENTRY_OUTCOMES: EnumTable[EntryOutcome] = EnumTable(
    {
        EntryOutcome.ADDED: pb.ENTRY_OUTCOME_ADDED,
        EntryOutcome.REVISED: pb.ENTRY_OUTCOME_REVISED,
        EntryOutcome.UNCHANGED: pb.ENTRY_OUTCOME_UNCHANGED,
        EntryOutcome.DUPLICATE: pb.ENTRY_OUTCOME_DUPLICATE,
    }
)

TAG_MATCHES: EnumTable[TagMatch] = EnumTable(
    {TagMatch.ALL: types.TAG_MATCH_ALL, TagMatch.ANY: types.TAG_MATCH_ANY},
    aliases={types.TAG_MATCH_UNSPECIFIED: TagMatch.ALL},
)

# No alias for UNSPECIFIED: an empty `statuses` list is what means "active only".
ENTRY_STATUSES: EnumTable[EntryStatus] = EnumTable(
    {
        EntryStatus.ACTIVE: types.ENTRY_STATUS_ACTIVE,
        EntryStatus.INACTIVE: types.ENTRY_STATUS_INACTIVE,
        EntryStatus.MERGED: types.ENTRY_STATUS_MERGED,
    }
)

# No alias: a preview must say which write it is for.
RESTORE_OPERATIONS: EnumTable[RestoreOperation] = EnumTable(
    {
        RestoreOperation.RESTORE: types.RESTORE_OPERATION_RESTORE,
        RestoreOperation.UNDO_MERGE: types.RESTORE_OPERATION_UNDO_MERGE,
    }
)

# Search channels are plain names in the domain (fusion keys), enums on the wire.
_CHANNEL_TO_PB = {"fts": types.SEARCH_CHANNEL_FTS, "vector": types.SEARCH_CHANNEL_VECTOR}
_CHANNEL_FROM_PB = {number: name for name, number in _CHANNEL_TO_PB.items()}


def search_channel_to_pb(name: str) -> Any:
    return _CHANNEL_TO_PB[name]


def search_channel_from_pb(number: int, field: str) -> str:
    name = _CHANNEL_FROM_PB.get(number)  # type: ignore[call-overload]
    if name is None:
        raise InvalidArgumentError(field, f"unsupported search channel {number}")
    return name


# -- scalars ------------------------------------------------------------------------------------


def timestamp(ms: int) -> Timestamp:
    ts = Timestamp()
    ts.FromMilliseconds(ms)
    return ts


def timestamp_ms(ts: Timestamp) -> int:
    return ts.ToMilliseconds()


def _optional(message: Message, name: str) -> str | None:
    """An `optional string` field: None when unset (so "" stays distinguishable)."""
    return getattr(message, name) if message.HasField(name) else None


# -- refs (both directions) ---------------------------------------------------------------------


def artifact_ref(msg: types.ArtifactRef) -> ArtifactRef:
    return ArtifactRef(msg.artifact_id, msg.revision)


def artifact_ref_pb(ref: ArtifactRef) -> types.ArtifactRef:
    return types.ArtifactRef(artifact_id=ref.artifact_id, revision=ref.revision)


def artifact_refs(msgs: Iterable[types.ArtifactRef]) -> list[ArtifactRef]:
    return [artifact_ref(m) for m in msgs]


def source_ref(msg: types.SourceRef) -> SourceRef:
    return SourceRef(msg.source_id, msg.content_hash)


def source_ref_pb(ref: SourceRef) -> types.SourceRef:
    return types.SourceRef(source_id=ref.source_id, content_hash=ref.content_hash)


def source_refs(msgs: Iterable[types.SourceRef]) -> list[SourceRef]:
    return [source_ref(m) for m in msgs]


def entry_ref(msg: types.EntryRef) -> EntryRef:
    return EntryRef(msg.entry_id, msg.entry_version_id)


def entry_ref_pb(ref: EntryRef) -> types.EntryRef:
    return types.EntryRef(entry_id=ref.entry_id, entry_version_id=ref.entry_version_id)


def entry_refs(msgs: Iterable[types.EntryRef]) -> list[EntryRef]:
    return [entry_ref(m) for m in msgs]


def citation(msg: types.Citation) -> Citation:
    return Citation(artifact_ref(msg.memory_ref), msg.entry_id, msg.entry_version_id)


def citation_pb(value: Citation) -> types.Citation:
    return types.Citation(
        memory_ref=artifact_ref_pb(value.memory_ref),
        entry_id=value.entry_id,
        entry_version_id=value.entry_version_id,
    )


# -- requests -> domain -------------------------------------------------------------------------


def entry_input(msg: types.EntryInput) -> EntryInput:
    """`entry` unset means add (target None); set means revise exactly that version."""
    return EntryInput(
        target=entry_ref(msg.entry) if msg.HasField("entry") else None,
        kind=msg.kind,
        text=msg.text,
        sources=source_refs(msg.sources),
        artifacts=artifact_refs(msg.artifacts),
        reason=_optional(msg, "reason"),
        description=_optional(msg, "description"),
        tags=tuple(msg.tags),
    )


def remember_memory(request: pb.RememberRequest) -> ArtifactRef | None:
    """Unset `memory` means create a new Memory."""
    return artifact_ref(request.memory) if request.HasField("memory") else None


def organize_steps(request: pb.OrganizeRequest) -> list[OrganizeStep]:
    return [ORGANIZE_STEPS.from_pb(s, f"steps[{i}]") for i, s in enumerate(request.steps)]


def changes_since(request: pb.ChangesRequest) -> int | ArtifactRef | None:
    which = request.WhichOneof("since")
    if which == "since_revision":
        return request.since_revision
    if which == "since_ref":
        return artifact_ref(request.since_ref)
    return None


def reason(
    request: pb.ForgetRequest
    | pb.ReactivateRequest
    | pb.MergeRequest
    | pb.RestoreRequest
    | pb.UndoMergeRequest,
) -> str | None:
    return _optional(request, "reason")


def entry_filter(
    request: pb.SearchRequest | pb.GetRecallManifestRequest | pb.ListEntriesRequest,
) -> EntryFilter:
    """Kinds and tags exactly as sent (the service validates them and never normalizes)."""
    tag_match = TAG_MATCHES.from_pb(request.tag_match, "tag_match")
    if not request.kinds and not request.tags:
        return NO_FILTER
    return EntryFilter(
        kinds=tuple(request.kinds),
        tags=tuple(request.tags),
        tag_match=tag_match,
    )


def min_score(request: pb.SearchRequest) -> float | None:
    return request.min_score if request.HasField("min_score") else None


def entry_statuses(request: pb.ListEntriesRequest) -> list[EntryStatus]:
    """Empty means active only (the service's default)."""
    statuses = [ENTRY_STATUSES.from_pb(s, f"statuses[{i}]") for i, s in enumerate(request.statuses)]
    return statuses or [EntryStatus.ACTIVE]


def merge_result_input(request: pb.MergeRequest) -> EntryInput:
    """The merged entry as an add (no target); sources/artifacts are the operation's evidence.
    The request's reason is the operation's (MemoryService.merge takes it apart)."""
    return EntryInput(
        target=None,
        kind=request.kind,
        text=request.text,
        sources=source_refs(request.sources),
        artifacts=artifact_refs(request.artifacts),
        description=_optional(request, "description"),
        tags=tuple(request.tags),
    )


def restore_operation(request: pb.PreviewRestoreRequest) -> RestoreOperation:
    if request.operation == types.RESTORE_OPERATION_UNSPECIFIED:
        raise InvalidArgumentError(
            "operation", "is required: RESTORE_OPERATION_RESTORE or RESTORE_OPERATION_UNDO_MERGE"
        )
    return RESTORE_OPERATIONS.from_pb(request.operation, "operation")


def entry_version_id(request: pb.RestoreRequest | pb.PreviewRestoreRequest) -> str | None:
    """Empty means "the version the entry had when it was frozen or forgotten"."""
    return request.entry_version_id or None


# -- domain -> responses ------------------------------------------------------------------------


def source_pb(source: Source) -> types.Source:
    return types.Source(
        source_id=source.source_id,
        kind=source.kind,
        uri=source.uri,
        media_type=source.media_type,
        content=source.content,
        metadata=dict(source.metadata),
        content_hash=source.content_hash,
        created_at=timestamp(source.created_at_ms),
    )


def memory_change_pb(change: MemoryChange) -> types.MemoryChange:
    msg = types.MemoryChange(op=CHANGE_OPS.to_pb(change.op), entry_id=change.entry_id)
    # Only set optional fields that have a value: presence is part of the contract.
    if change.from_entry_version_id is not None:
        msg.from_entry_version_id = change.from_entry_version_id
    if change.to_entry_version_id is not None:
        msg.to_entry_version_id = change.to_entry_version_id
    if change.reason is not None:
        msg.reason = change.reason
    if change.merged_into is not None:
        msg.merged_into_entry_id = change.merged_into
    return msg


def memory_changes_pb(changes: Sequence[MemoryChange]) -> list[types.MemoryChange]:
    return [memory_change_pb(c) for c in changes]


def manifest_entry_pb(entry: ManifestEntry) -> types.MemoryManifestEntry:
    return types.MemoryManifestEntry(
        entry_id=entry.entry_id,
        entry_version_id=entry.entry_version_id,
        entry_content_hash=entry.entry_content_hash,
        state=ENTRY_STATES.to_pb(entry.state),
        merged_into_entry_id=entry.merged_into or "",
    )


def memory_content_pb(content: MemoryContent) -> types.MemoryContent:
    return types.MemoryContent(
        schema=MEMORY_SCHEMA,
        manifest=types.MemoryManifest(
            format=MANIFEST_FORMAT,
            entries=[manifest_entry_pb(e) for e in content.entries],
        ),
        changes=memory_changes_pb(content.changes),
    )


def lineage_pb(lineage: Lineage) -> types.Lineage:
    return types.Lineage(
        operation=lineage.operation,
        sources=[source_ref_pb(s) for s in lineage.sources],
        artifacts=[artifact_ref_pb(a) for a in lineage.artifacts],
    )


def entry_version_pb(version: EntryVersion) -> types.EntryVersion:
    msg = types.EntryVersion(
        memory_artifact_id=version.memory_artifact_id,
        entry_id=version.entry_id,
        entry_version_id=version.entry_version_id,
        version=version.version,
        kind=version.content.kind,
        text=version.content.text,
        source_refs=[source_ref_pb(s) for s in version.content.source_refs],
        artifact_refs=[artifact_ref_pb(a) for a in version.content.artifact_refs],
        entry_content_hash=version.entry_content_hash,
        created_in_revision=version.created_in_revision,
        description=version.content.description or "",
        tags=version.content.tags,
    )
    if version.previous_version_id is not None:
        msg.previous_version_id = version.previous_version_id
    return msg


def entry_result_pb(result: EntryResult) -> pb.EntryResult:
    return pb.EntryResult(
        outcome=ENTRY_OUTCOMES.to_pb(result.outcome),
        entry_id=result.entry_id,
        entry_version_id=result.entry_version_id,
    )


def _write_fields(result: WriteResult) -> dict[str, Any]:
    """Fields shared by every write response; `memory` stays unset when nothing was created."""
    fields: dict[str, Any] = {
        "changed": result.changed,
        "content_hash": result.content_hash,
        "changes": memory_changes_pb(result.changes),
    }
    if result.memory is not None:
        fields["memory"] = artifact_ref_pb(result.memory)
    return fields


def entry_input_pb(entry: EntryInput) -> types.EntryInput:
    msg = types.EntryInput(
        kind=entry.kind,
        text=entry.text,
        sources=[source_ref_pb(r) for r in entry.sources],
        artifacts=[artifact_ref_pb(a) for a in entry.artifacts],
    )
    if entry.target is not None:
        msg.entry.CopyFrom(entry_ref_pb(entry.target))
    if entry.reason is not None:
        msg.reason = entry.reason
    if entry.description is not None:
        msg.description = entry.description
    msg.tags.extend(entry.tags)
    return msg


SUGGESTION_KINDS: EnumTable[SuggestionKind] = EnumTable(
    {
        SuggestionKind.FORGET: types.SUGGESTION_KIND_FORGET,
        SuggestionKind.AMBIGUOUS: types.SUGGESTION_KIND_AMBIGUOUS,
    }
)


def suggestion_pb(suggestion: Suggestion) -> types.Suggestion:
    return types.Suggestion(
        kind=SUGGESTION_KINDS.to_pb(suggestion.kind),
        entries=[entry_ref_pb(r) for r in suggestion.entries],
        adapter=suggestion.adapter,
        reason=suggestion.reason,
        sources=[source_ref_pb(r) for r in suggestion.sources],
    )


def remember_response(result: WriteResult) -> pb.RememberResponse:
    return pb.RememberResponse(
        results=[entry_result_pb(r) for r in result.results],
        candidates=[entry_input_pb(e) for e in result.candidates],
        suggestions=[suggestion_pb(s) for s in result.suggestions],
        **_write_fields(result),
    )


def forget_response(result: WriteResult) -> pb.ForgetResponse:
    return pb.ForgetResponse(**_write_fields(result))


def reactivate_response(result: WriteResult) -> pb.ReactivateResponse:
    return pb.ReactivateResponse(**_write_fields(result))


def organize_response(result: WriteResult) -> pb.OrganizeResponse:
    return pb.OrganizeResponse(**_write_fields(result))


def get_memory_response(view: MemoryView) -> pb.GetMemoryResponse:
    revision = view.revision
    content = revision.content
    if view.content_omitted:  # the frame only: content_hash still names the full content
        sent = types.MemoryContent(
            schema=MEMORY_SCHEMA, manifest=types.MemoryManifest(format=MANIFEST_FORMAT)
        )
    else:
        sent = memory_content_pb(content)
    return pb.GetMemoryResponse(
        memory=artifact_ref_pb(revision.ref),
        content=sent,
        content_omitted=view.content_omitted,
        content_hash=content.content_hash,
        lineage=lineage_pb(revision.lineage),
        committed_at=timestamp(revision.committed_at_ms),
        head_revision=view.head_revision,
        active_entries=content.active_count,
        inactive_entries=content.entry_count - content.active_count,
    )


def revision_changes_pb(item: RevisionChanges) -> pb.RevisionChanges:
    return pb.RevisionChanges(
        memory_ref=artifact_ref_pb(item.ref),
        content_hash=item.content_hash,
        changes=memory_changes_pb(item.changes),
        committed_at=timestamp(item.committed_at_ms),
    )


def changes_response(item: RevisionChanges | Progress, *, now_ms: int) -> pb.ChangesResponse:
    """One stream message; `now_ms` stamps progress messages (the domain has no clock here)."""
    if isinstance(item, Progress):
        return pb.ChangesResponse(
            progress=pb.ChangesProgress(head=artifact_ref_pb(item.head), sent_at=timestamp(now_ms))
        )
    return pb.ChangesResponse(revision=revision_changes_pb(item))


def hit_pb(hit: Hit, memory_ref: types.ArtifactRef | None = None) -> types.Hit:
    message = types.Hit()
    _fill_hit(message, hit, memory_ref or artifact_ref_pb(hit.memory_ref))
    return message


def _fill_hit(message: types.Hit, hit: Hit, memory_ref: types.ArtifactRef) -> None:
    # Field by field rather than by keywords: protobuf's keyword constructor is slower, and a
    # search answers one of these per hit (docs/design/performance-history.md, profiled).
    message.memory_ref.CopyFrom(memory_ref)
    message.entry_id = hit.entry_id
    message.entry_version_id = hit.entry_version_id
    message.entry_content_hash = hit.entry_content_hash
    message.kind = hit.kind
    message.text = hit.text
    message.score = hit.score
    message.matched_by.extend([_CHANNEL_TO_PB[c] for c in hit.matched_by])
    message.channel_ranks.extend(hit.channel_ranks)
    message.description = hit.description
    if hit.tags:
        message.tags.extend(hit.tags)


def search_response(result: SearchResult) -> pb.SearchResponse:
    response = pb.SearchResponse(
        mode=SEARCH_MODES.to_pb(result.mode), fallback_reason=result.fallback_reason
    )
    refs = {ref: artifact_ref_pb(ref) for ref in result.memories}
    response.memories.extend(refs.values())
    add = response.hits.add
    for hit in result.hits:
        ref = refs.get(hit.memory_ref)
        if ref is None:
            ref = refs[hit.memory_ref] = artifact_ref_pb(hit.memory_ref)
        _fill_hit(add(), hit, ref)
    return response


_CONTEXT_SECTIONS = {
    Section.RULES: types.CONTEXT_SECTION_RULES,
    Section.RELEVANT: types.CONTEXT_SECTION_RELEVANT,
    Section.RECENT_NOTES: types.CONTEXT_SECTION_RECENT_NOTES,
}


def prepare_context_response(prepared: PreparedContext) -> pb.PrepareContextResponse:
    return pb.PrepareContextResponse(
        block=prepared.block,
        entries=[
            types.ContextEntry(
                citation=citation_pb(line.citation),
                kind=line.kind,
                text=line.text,
                section=_CONTEXT_SECTIONS[line.section],
            )
            for line in prepared.lines
        ],
        memories=[artifact_ref_pb(m) for m in prepared.memories],
        omitted_entries=prepared.omitted,
    )


def expanded_entry_pb(entry: ExpandedEntry) -> pb.ExpandedEntry:
    return pb.ExpandedEntry(
        citation=citation_pb(entry.citation),
        version=entry_version_pb(entry.version),
        state=ENTRY_STATES.to_pb(entry.state),
    )


def capabilities_pb(caps: Capabilities) -> types.Capabilities:
    message = types.Capabilities(
        fts=caps.fts,
        vector=caps.vector,
        hybrid=caps.hybrid,
        candidate_extraction=caps.candidate_extraction,
        change_follow=caps.change_follow,
        backend=caps.backend,
        analyzer=caps.analyzer,
        vector_unavailable_reason=caps.vector_unavailable_reason,
        fts_unavailable_reason=caps.fts_unavailable_reason,
        engine_version=caps.engine_version,
        candidate_adapters=caps.candidate_adapters,
        candidate_extractors=caps.candidate_extractors,
    )
    if caps.embedding_profile is not None:
        p = caps.embedding_profile
        message.embedding_profile.CopyFrom(
            types.EmbeddingProfile(
                profile_id=p.profile_id,
                model=p.model,
                dimension=p.dimension,
                distance=p.distance,
                normalization=p.normalization,
            )
        )
    return message
