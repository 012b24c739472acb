import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from powercontext.memory.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RememberMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REMEMBER_MODE_UNSPECIFIED: _ClassVar[RememberMode]
    REMEMBER_MODE_AUTO: _ClassVar[RememberMode]
    REMEMBER_MODE_APPEND: _ClassVar[RememberMode]
    REMEMBER_MODE_EXTRACT: _ClassVar[RememberMode]

class EntryOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_OUTCOME_UNSPECIFIED: _ClassVar[EntryOutcome]
    ENTRY_OUTCOME_ADDED: _ClassVar[EntryOutcome]
    ENTRY_OUTCOME_REVISED: _ClassVar[EntryOutcome]
    ENTRY_OUTCOME_UNCHANGED: _ClassVar[EntryOutcome]
    ENTRY_OUTCOME_DUPLICATE: _ClassVar[EntryOutcome]

class OrganizeStep(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORGANIZE_STEP_UNSPECIFIED: _ClassVar[OrganizeStep]
    ORGANIZE_STEP_DEDUPE: _ClassVar[OrganizeStep]
    ORGANIZE_STEP_NORMALIZE: _ClassVar[OrganizeStep]

class RecallManifestCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RECALL_MANIFEST_CODE_UNSPECIFIED: _ClassVar[RecallManifestCode]
    RECALL_MANIFEST_CODE_PAGE: _ClassVar[RecallManifestCode]
    RECALL_MANIFEST_CODE_EMPTY_MEMORY: _ClassVar[RecallManifestCode]
REMEMBER_MODE_UNSPECIFIED: RememberMode
REMEMBER_MODE_AUTO: RememberMode
REMEMBER_MODE_APPEND: RememberMode
REMEMBER_MODE_EXTRACT: RememberMode
ENTRY_OUTCOME_UNSPECIFIED: EntryOutcome
ENTRY_OUTCOME_ADDED: EntryOutcome
ENTRY_OUTCOME_REVISED: EntryOutcome
ENTRY_OUTCOME_UNCHANGED: EntryOutcome
ENTRY_OUTCOME_DUPLICATE: EntryOutcome
ORGANIZE_STEP_UNSPECIFIED: OrganizeStep
ORGANIZE_STEP_DEDUPE: OrganizeStep
ORGANIZE_STEP_NORMALIZE: OrganizeStep
RECALL_MANIFEST_CODE_UNSPECIFIED: RecallManifestCode
RECALL_MANIFEST_CODE_PAGE: RecallManifestCode
RECALL_MANIFEST_CODE_EMPTY_MEMORY: RecallManifestCode

class PutSourceRequest(_message.Message):
    __slots__ = ("kind", "uri", "media_type", "content", "metadata", "memory_id")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    KIND_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    kind: str
    uri: str
    media_type: str
    content: bytes
    metadata: _containers.ScalarMap[str, str]
    memory_id: str
    def __init__(self, kind: _Optional[str] = ..., uri: _Optional[str] = ..., media_type: _Optional[str] = ..., content: _Optional[bytes] = ..., metadata: _Optional[_Mapping[str, str]] = ..., memory_id: _Optional[str] = ...) -> None: ...

class PutSourceResponse(_message.Message):
    __slots__ = ("source", "created", "content_size", "content_truncated")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_SIZE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    source: _types_pb2.Source
    created: bool
    content_size: int
    content_truncated: bool
    def __init__(self, source: _Optional[_Union[_types_pb2.Source, _Mapping]] = ..., created: _Optional[bool] = ..., content_size: _Optional[int] = ..., content_truncated: _Optional[bool] = ...) -> None: ...

class GetSourceRequest(_message.Message):
    __slots__ = ("source_id", "content_offset", "content_limit")
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONTENT_LIMIT_FIELD_NUMBER: _ClassVar[int]
    source_id: str
    content_offset: int
    content_limit: int
    def __init__(self, source_id: _Optional[str] = ..., content_offset: _Optional[int] = ..., content_limit: _Optional[int] = ...) -> None: ...

class GetSourceResponse(_message.Message):
    __slots__ = ("source", "content_size", "content_truncated")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_SIZE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    source: _types_pb2.Source
    content_size: int
    content_truncated: bool
    def __init__(self, source: _Optional[_Union[_types_pb2.Source, _Mapping]] = ..., content_size: _Optional[int] = ..., content_truncated: _Optional[bool] = ...) -> None: ...

class RememberRequest(_message.Message):
    __slots__ = ("memory", "sources", "artifacts", "entries", "mode", "request_id", "extractors")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    EXTRACTORS_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    sources: _containers.RepeatedCompositeFieldContainer[_types_pb2.SourceRef]
    artifacts: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    entries: _containers.RepeatedCompositeFieldContainer[_types_pb2.EntryInput]
    mode: RememberMode
    request_id: str
    extractors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., sources: _Optional[_Iterable[_Union[_types_pb2.SourceRef, _Mapping]]] = ..., artifacts: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ..., entries: _Optional[_Iterable[_Union[_types_pb2.EntryInput, _Mapping]]] = ..., mode: _Optional[_Union[RememberMode, str]] = ..., request_id: _Optional[str] = ..., extractors: _Optional[_Iterable[str]] = ...) -> None: ...

class EntryResult(_message.Message):
    __slots__ = ("outcome", "entry_id", "entry_version_id")
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    outcome: EntryOutcome
    entry_id: str
    entry_version_id: str
    def __init__(self, outcome: _Optional[_Union[EntryOutcome, str]] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ...) -> None: ...

class RememberResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes", "results", "suggestions", "candidates")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    SUGGESTIONS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    results: _containers.RepeatedCompositeFieldContainer[EntryResult]
    suggestions: _containers.RepeatedCompositeFieldContainer[_types_pb2.Suggestion]
    candidates: _containers.RepeatedCompositeFieldContainer[_types_pb2.EntryInput]
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[EntryResult, _Mapping]]] = ..., suggestions: _Optional[_Iterable[_Union[_types_pb2.Suggestion, _Mapping]]] = ..., candidates: _Optional[_Iterable[_Union[_types_pb2.EntryInput, _Mapping]]] = ...) -> None: ...

class ForgetRequest(_message.Message):
    __slots__ = ("memory", "entries", "reason", "request_id")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    entries: _containers.RepeatedCompositeFieldContainer[_types_pb2.EntryRef]
    reason: str
    request_id: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[_types_pb2.EntryRef, _Mapping]]] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ForgetResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ...) -> None: ...

class ReactivateRequest(_message.Message):
    __slots__ = ("memory", "entries", "reason", "request_id")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    entries: _containers.RepeatedCompositeFieldContainer[_types_pb2.EntryRef]
    reason: str
    request_id: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[_types_pb2.EntryRef, _Mapping]]] = ..., reason: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReactivateResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ...) -> None: ...

class OrganizeRequest(_message.Message):
    __slots__ = ("memory", "steps", "request_id")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    steps: _containers.RepeatedScalarFieldContainer[OrganizeStep]
    request_id: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., steps: _Optional[_Iterable[_Union[OrganizeStep, str]]] = ..., request_id: _Optional[str] = ...) -> None: ...

class OrganizeResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ...) -> None: ...

class GetMemoryRequest(_message.Message):
    __slots__ = ("memory", "metadata_only")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    METADATA_ONLY_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    metadata_only: bool
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., metadata_only: _Optional[bool] = ...) -> None: ...

class GetMemoryResponse(_message.Message):
    __slots__ = ("memory", "content", "content_hash", "lineage", "committed_at", "head_revision", "active_entries", "inactive_entries", "content_omitted")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    LINEAGE_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    HEAD_REVISION_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    INACTIVE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_OMITTED_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    content: _types_pb2.MemoryContent
    content_hash: str
    lineage: _types_pb2.Lineage
    committed_at: _timestamp_pb2.Timestamp
    head_revision: int
    active_entries: int
    inactive_entries: int
    content_omitted: bool
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., content: _Optional[_Union[_types_pb2.MemoryContent, _Mapping]] = ..., content_hash: _Optional[str] = ..., lineage: _Optional[_Union[_types_pb2.Lineage, _Mapping]] = ..., committed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., head_revision: _Optional[int] = ..., active_entries: _Optional[int] = ..., inactive_entries: _Optional[int] = ..., content_omitted: _Optional[bool] = ...) -> None: ...

class ChangesRequest(_message.Message):
    __slots__ = ("memory", "since_revision", "since_ref", "follow")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SINCE_REVISION_FIELD_NUMBER: _ClassVar[int]
    SINCE_REF_FIELD_NUMBER: _ClassVar[int]
    FOLLOW_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    since_revision: int
    since_ref: _types_pb2.ArtifactRef
    follow: bool
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., since_revision: _Optional[int] = ..., since_ref: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., follow: _Optional[bool] = ...) -> None: ...

class RevisionChanges(_message.Message):
    __slots__ = ("memory_ref", "content_hash", "changes", "committed_at")
    MEMORY_REF_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    COMMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    memory_ref: _types_pb2.ArtifactRef
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    committed_at: _timestamp_pb2.Timestamp
    def __init__(self, memory_ref: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ..., committed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChangesProgress(_message.Message):
    __slots__ = ("head", "sent_at")
    HEAD_FIELD_NUMBER: _ClassVar[int]
    SENT_AT_FIELD_NUMBER: _ClassVar[int]
    head: _types_pb2.ArtifactRef
    sent_at: _timestamp_pb2.Timestamp
    def __init__(self, head: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., sent_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ChangesResponse(_message.Message):
    __slots__ = ("revision", "progress")
    REVISION_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    revision: RevisionChanges
    progress: ChangesProgress
    def __init__(self, revision: _Optional[_Union[RevisionChanges, _Mapping]] = ..., progress: _Optional[_Union[ChangesProgress, _Mapping]] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "memories", "limit", "mode", "kinds", "tags", "tag_match", "min_score")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAG_MATCH_FIELD_NUMBER: _ClassVar[int]
    MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    query: str
    memories: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    limit: int
    mode: _types_pb2.SearchMode
    kinds: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    tag_match: _types_pb2.TagMatch
    min_score: float
    def __init__(self, query: _Optional[str] = ..., memories: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ..., limit: _Optional[int] = ..., mode: _Optional[_Union[_types_pb2.SearchMode, str]] = ..., kinds: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., tag_match: _Optional[_Union[_types_pb2.TagMatch, str]] = ..., min_score: _Optional[float] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("hits", "mode", "fallback_reason", "memories")
    HITS_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_REASON_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    hits: _containers.RepeatedCompositeFieldContainer[_types_pb2.Hit]
    mode: _types_pb2.SearchMode
    fallback_reason: str
    memories: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    def __init__(self, hits: _Optional[_Iterable[_Union[_types_pb2.Hit, _Mapping]]] = ..., mode: _Optional[_Union[_types_pb2.SearchMode, str]] = ..., fallback_reason: _Optional[str] = ..., memories: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ...) -> None: ...

class ExpandRequest(_message.Message):
    __slots__ = ("citations",)
    CITATIONS_FIELD_NUMBER: _ClassVar[int]
    citations: _containers.RepeatedCompositeFieldContainer[_types_pb2.Citation]
    def __init__(self, citations: _Optional[_Iterable[_Union[_types_pb2.Citation, _Mapping]]] = ...) -> None: ...

class ExpandedEntry(_message.Message):
    __slots__ = ("citation", "version", "state")
    CITATION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    citation: _types_pb2.Citation
    version: _types_pb2.EntryVersion
    state: _types_pb2.EntryState
    def __init__(self, citation: _Optional[_Union[_types_pb2.Citation, _Mapping]] = ..., version: _Optional[_Union[_types_pb2.EntryVersion, _Mapping]] = ..., state: _Optional[_Union[_types_pb2.EntryState, str]] = ...) -> None: ...

class ExpandResponse(_message.Message):
    __slots__ = ("entries",)
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[ExpandedEntry]
    def __init__(self, entries: _Optional[_Iterable[_Union[ExpandedEntry, _Mapping]]] = ...) -> None: ...

class GetCapabilitiesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class GetCapabilitiesResponse(_message.Message):
    __slots__ = ("capabilities",)
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    capabilities: _types_pb2.Capabilities
    def __init__(self, capabilities: _Optional[_Union[_types_pb2.Capabilities, _Mapping]] = ...) -> None: ...

class PrepareContextRequest(_message.Message):
    __slots__ = ("memories", "query", "budget_bytes")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    BUDGET_BYTES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    query: str
    budget_bytes: int
    def __init__(self, memories: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ..., query: _Optional[str] = ..., budget_bytes: _Optional[int] = ...) -> None: ...

class PrepareContextResponse(_message.Message):
    __slots__ = ("block", "entries", "memories", "omitted_entries")
    BLOCK_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    OMITTED_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    block: str
    entries: _containers.RepeatedCompositeFieldContainer[_types_pb2.ContextEntry]
    memories: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    omitted_entries: int
    def __init__(self, block: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[_types_pb2.ContextEntry, _Mapping]]] = ..., memories: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ..., omitted_entries: _Optional[int] = ...) -> None: ...

class GetRecallManifestRequest(_message.Message):
    __slots__ = ("memory", "page_size", "page_token", "kinds", "tags", "tag_match")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAG_MATCH_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    page_size: int
    page_token: str
    kinds: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    tag_match: _types_pb2.TagMatch
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., kinds: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., tag_match: _Optional[_Union[_types_pb2.TagMatch, str]] = ...) -> None: ...

class GetRecallManifestResponse(_message.Message):
    __slots__ = ("memory", "items", "next_page_token", "code")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    items: _containers.RepeatedCompositeFieldContainer[_types_pb2.ListedEntry]
    next_page_token: str
    code: RecallManifestCode
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., items: _Optional[_Iterable[_Union[_types_pb2.ListedEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., code: _Optional[_Union[RecallManifestCode, str]] = ...) -> None: ...

class ListEntriesRequest(_message.Message):
    __slots__ = ("memory", "page_size", "page_token", "statuses", "kinds", "tags", "tag_match", "include_text")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAG_MATCH_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_TEXT_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    page_size: int
    page_token: str
    statuses: _containers.RepeatedScalarFieldContainer[_types_pb2.EntryStatus]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    tag_match: _types_pb2.TagMatch
    include_text: bool
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., statuses: _Optional[_Iterable[_Union[_types_pb2.EntryStatus, str]]] = ..., kinds: _Optional[_Iterable[str]] = ..., tags: _Optional[_Iterable[str]] = ..., tag_match: _Optional[_Union[_types_pb2.TagMatch, str]] = ..., include_text: _Optional[bool] = ...) -> None: ...

class ListEntriesResponse(_message.Message):
    __slots__ = ("memory", "entries", "next_page_token")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    entries: _containers.RepeatedCompositeFieldContainer[_types_pb2.ListedEntry]
    next_page_token: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[_types_pb2.ListedEntry, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MergeRequest(_message.Message):
    __slots__ = ("memory", "inputs", "kind", "text", "description", "tags", "sources", "artifacts", "reason")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    INPUTS_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    inputs: _containers.RepeatedCompositeFieldContainer[_types_pb2.EntryRef]
    kind: str
    text: str
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    sources: _containers.RepeatedCompositeFieldContainer[_types_pb2.SourceRef]
    artifacts: _containers.RepeatedCompositeFieldContainer[_types_pb2.ArtifactRef]
    reason: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., inputs: _Optional[_Iterable[_Union[_types_pb2.EntryRef, _Mapping]]] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., sources: _Optional[_Iterable[_Union[_types_pb2.SourceRef, _Mapping]]] = ..., artifacts: _Optional[_Iterable[_Union[_types_pb2.ArtifactRef, _Mapping]]] = ..., reason: _Optional[str] = ...) -> None: ...

class MergeResponse(_message.Message):
    __slots__ = ("memory", "content_hash", "changes", "result")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    result: _types_pb2.EntryRef
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ..., result: _Optional[_Union[_types_pb2.EntryRef, _Mapping]] = ...) -> None: ...

class RestoreRequest(_message.Message):
    __slots__ = ("memory", "entry_id", "entry_version_id", "preview_token", "reason")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    entry_id: str
    entry_version_id: str
    preview_token: str
    reason: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ..., preview_token: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class RestoreResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes", "outcome")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    outcome: _types_pb2.RestoreOutcome
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ..., outcome: _Optional[_Union[_types_pb2.RestoreOutcome, _Mapping]] = ...) -> None: ...

class UndoMergeRequest(_message.Message):
    __slots__ = ("memory", "entry_id", "preview_token", "reason")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    entry_id: str
    preview_token: str
    reason: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., entry_id: _Optional[str] = ..., preview_token: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class UndoMergeResponse(_message.Message):
    __slots__ = ("memory", "changed", "content_hash", "changes", "outcome")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    changed: bool
    content_hash: str
    changes: _containers.RepeatedCompositeFieldContainer[_types_pb2.MemoryChange]
    outcome: _types_pb2.RestoreOutcome
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., changed: _Optional[bool] = ..., content_hash: _Optional[str] = ..., changes: _Optional[_Iterable[_Union[_types_pb2.MemoryChange, _Mapping]]] = ..., outcome: _Optional[_Union[_types_pb2.RestoreOutcome, _Mapping]] = ...) -> None: ...

class PreviewRestoreRequest(_message.Message):
    __slots__ = ("memory", "operation", "entry_id", "entry_version_id")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    operation: _types_pb2.RestoreOperation
    entry_id: str
    entry_version_id: str
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., operation: _Optional[_Union[_types_pb2.RestoreOperation, str]] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ...) -> None: ...

class PreviewRestoreResponse(_message.Message):
    __slots__ = ("memory", "outcome", "would_change", "preview_token", "expires_at")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    WOULD_CHANGE_FIELD_NUMBER: _ClassVar[int]
    PREVIEW_TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    memory: _types_pb2.ArtifactRef
    outcome: _types_pb2.RestoreOutcome
    would_change: bool
    preview_token: str
    expires_at: _timestamp_pb2.Timestamp
    def __init__(self, memory: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., outcome: _Optional[_Union[_types_pb2.RestoreOutcome, _Mapping]] = ..., would_change: _Optional[bool] = ..., preview_token: _Optional[str] = ..., expires_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListMemoriesRequest(_message.Message):
    __slots__ = ("page_size", "page_token")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class MemorySummary(_message.Message):
    __slots__ = ("head", "active_entries", "inactive_entries", "created_at", "changed_at", "last_operation", "label", "label_version")
    HEAD_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    INACTIVE_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    CHANGED_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_OPERATION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LABEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    head: _types_pb2.ArtifactRef
    active_entries: int
    inactive_entries: int
    created_at: _timestamp_pb2.Timestamp
    changed_at: _timestamp_pb2.Timestamp
    last_operation: str
    label: str
    label_version: int
    def __init__(self, head: _Optional[_Union[_types_pb2.ArtifactRef, _Mapping]] = ..., active_entries: _Optional[int] = ..., inactive_entries: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., changed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_operation: _Optional[str] = ..., label: _Optional[str] = ..., label_version: _Optional[int] = ...) -> None: ...

class ListMemoriesResponse(_message.Message):
    __slots__ = ("memories", "next_page_token")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[MemorySummary]
    next_page_token: str
    def __init__(self, memories: _Optional[_Iterable[_Union[MemorySummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class SetMemoryLabelRequest(_message.Message):
    __slots__ = ("memory_id", "label", "label_version")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LABEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    label: str
    label_version: int
    def __init__(self, memory_id: _Optional[str] = ..., label: _Optional[str] = ..., label_version: _Optional[int] = ...) -> None: ...

class SetMemoryLabelResponse(_message.Message):
    __slots__ = ("memory_id", "label", "label_version", "set_at")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LABEL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SET_AT_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    label: str
    label_version: int
    set_at: _timestamp_pb2.Timestamp
    def __init__(self, memory_id: _Optional[str] = ..., label: _Optional[str] = ..., label_version: _Optional[int] = ..., set_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
