import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EntryState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_STATE_UNSPECIFIED: _ClassVar[EntryState]
    ENTRY_STATE_ACTIVE: _ClassVar[EntryState]
    ENTRY_STATE_INACTIVE: _ClassVar[EntryState]

class ChangeOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHANGE_OP_UNSPECIFIED: _ClassVar[ChangeOp]
    CHANGE_OP_ADD: _ClassVar[ChangeOp]
    CHANGE_OP_REVISE: _ClassVar[ChangeOp]
    CHANGE_OP_DEACTIVATE: _ClassVar[ChangeOp]
    CHANGE_OP_REACTIVATE: _ClassVar[ChangeOp]

class SearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_MODE_UNSPECIFIED: _ClassVar[SearchMode]
    SEARCH_MODE_AUTO: _ClassVar[SearchMode]
    SEARCH_MODE_FTS: _ClassVar[SearchMode]
    SEARCH_MODE_VECTOR: _ClassVar[SearchMode]
    SEARCH_MODE_HYBRID: _ClassVar[SearchMode]

class SearchChannel(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_CHANNEL_UNSPECIFIED: _ClassVar[SearchChannel]
    SEARCH_CHANNEL_FTS: _ClassVar[SearchChannel]
    SEARCH_CHANNEL_VECTOR: _ClassVar[SearchChannel]

class TagMatch(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TAG_MATCH_UNSPECIFIED: _ClassVar[TagMatch]
    TAG_MATCH_ALL: _ClassVar[TagMatch]
    TAG_MATCH_ANY: _ClassVar[TagMatch]

class EntryStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENTRY_STATUS_UNSPECIFIED: _ClassVar[EntryStatus]
    ENTRY_STATUS_ACTIVE: _ClassVar[EntryStatus]
    ENTRY_STATUS_INACTIVE: _ClassVar[EntryStatus]
    ENTRY_STATUS_MERGED: _ClassVar[EntryStatus]

class RestoreOperation(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESTORE_OPERATION_UNSPECIFIED: _ClassVar[RestoreOperation]
    RESTORE_OPERATION_RESTORE: _ClassVar[RestoreOperation]
    RESTORE_OPERATION_UNDO_MERGE: _ClassVar[RestoreOperation]

class SuggestionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUGGESTION_KIND_UNSPECIFIED: _ClassVar[SuggestionKind]
    SUGGESTION_KIND_FORGET: _ClassVar[SuggestionKind]
    SUGGESTION_KIND_AMBIGUOUS: _ClassVar[SuggestionKind]

class ContextSection(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONTEXT_SECTION_UNSPECIFIED: _ClassVar[ContextSection]
    CONTEXT_SECTION_RULES: _ClassVar[ContextSection]
    CONTEXT_SECTION_RELEVANT: _ClassVar[ContextSection]
    CONTEXT_SECTION_RECENT_NOTES: _ClassVar[ContextSection]
ENTRY_STATE_UNSPECIFIED: EntryState
ENTRY_STATE_ACTIVE: EntryState
ENTRY_STATE_INACTIVE: EntryState
CHANGE_OP_UNSPECIFIED: ChangeOp
CHANGE_OP_ADD: ChangeOp
CHANGE_OP_REVISE: ChangeOp
CHANGE_OP_DEACTIVATE: ChangeOp
CHANGE_OP_REACTIVATE: ChangeOp
SEARCH_MODE_UNSPECIFIED: SearchMode
SEARCH_MODE_AUTO: SearchMode
SEARCH_MODE_FTS: SearchMode
SEARCH_MODE_VECTOR: SearchMode
SEARCH_MODE_HYBRID: SearchMode
SEARCH_CHANNEL_UNSPECIFIED: SearchChannel
SEARCH_CHANNEL_FTS: SearchChannel
SEARCH_CHANNEL_VECTOR: SearchChannel
TAG_MATCH_UNSPECIFIED: TagMatch
TAG_MATCH_ALL: TagMatch
TAG_MATCH_ANY: TagMatch
ENTRY_STATUS_UNSPECIFIED: EntryStatus
ENTRY_STATUS_ACTIVE: EntryStatus
ENTRY_STATUS_INACTIVE: EntryStatus
ENTRY_STATUS_MERGED: EntryStatus
RESTORE_OPERATION_UNSPECIFIED: RestoreOperation
RESTORE_OPERATION_RESTORE: RestoreOperation
RESTORE_OPERATION_UNDO_MERGE: RestoreOperation
SUGGESTION_KIND_UNSPECIFIED: SuggestionKind
SUGGESTION_KIND_FORGET: SuggestionKind
SUGGESTION_KIND_AMBIGUOUS: SuggestionKind
CONTEXT_SECTION_UNSPECIFIED: ContextSection
CONTEXT_SECTION_RULES: ContextSection
CONTEXT_SECTION_RELEVANT: ContextSection
CONTEXT_SECTION_RECENT_NOTES: ContextSection

class ArtifactRef(_message.Message):
    __slots__ = ("artifact_id", "revision")
    ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    artifact_id: str
    revision: int
    def __init__(self, artifact_id: _Optional[str] = ..., revision: _Optional[int] = ...) -> None: ...

class SourceRef(_message.Message):
    __slots__ = ("source_id", "content_hash")
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    source_id: str
    content_hash: str
    def __init__(self, source_id: _Optional[str] = ..., content_hash: _Optional[str] = ...) -> None: ...

class Source(_message.Message):
    __slots__ = ("source_id", "kind", "uri", "media_type", "content", "metadata", "content_hash", "created_at")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    MEDIA_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    source_id: str
    kind: str
    uri: str
    media_type: str
    content: bytes
    metadata: _containers.ScalarMap[str, str]
    content_hash: str
    created_at: _timestamp_pb2.Timestamp
    def __init__(self, source_id: _Optional[str] = ..., kind: _Optional[str] = ..., uri: _Optional[str] = ..., media_type: _Optional[str] = ..., content: _Optional[bytes] = ..., metadata: _Optional[_Mapping[str, str]] = ..., content_hash: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class MemoryManifestEntry(_message.Message):
    __slots__ = ("entry_id", "entry_version_id", "entry_content_hash", "state", "merged_into_entry_id")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    MERGED_INTO_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    state: EntryState
    merged_into_entry_id: str
    def __init__(self, entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ..., entry_content_hash: _Optional[str] = ..., state: _Optional[_Union[EntryState, str]] = ..., merged_into_entry_id: _Optional[str] = ...) -> None: ...

class MemoryManifest(_message.Message):
    __slots__ = ("format", "entries")
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    format: str
    entries: _containers.RepeatedCompositeFieldContainer[MemoryManifestEntry]
    def __init__(self, format: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[MemoryManifestEntry, _Mapping]]] = ...) -> None: ...

class MemoryChange(_message.Message):
    __slots__ = ("op", "entry_id", "from_entry_version_id", "to_entry_version_id", "reason", "merged_into_entry_id")
    OP_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    FROM_ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    TO_ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    MERGED_INTO_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    op: ChangeOp
    entry_id: str
    from_entry_version_id: str
    to_entry_version_id: str
    reason: str
    merged_into_entry_id: str
    def __init__(self, op: _Optional[_Union[ChangeOp, str]] = ..., entry_id: _Optional[str] = ..., from_entry_version_id: _Optional[str] = ..., to_entry_version_id: _Optional[str] = ..., reason: _Optional[str] = ..., merged_into_entry_id: _Optional[str] = ...) -> None: ...

class MemoryContent(_message.Message):
    __slots__ = ("schema", "manifest", "changes")
    SCHEMA_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_FIELD_NUMBER: _ClassVar[int]
    CHANGES_FIELD_NUMBER: _ClassVar[int]
    schema: str
    manifest: MemoryManifest
    changes: _containers.RepeatedCompositeFieldContainer[MemoryChange]
    def __init__(self, schema: _Optional[str] = ..., manifest: _Optional[_Union[MemoryManifest, _Mapping]] = ..., changes: _Optional[_Iterable[_Union[MemoryChange, _Mapping]]] = ...) -> None: ...

class Lineage(_message.Message):
    __slots__ = ("operation", "sources", "artifacts")
    OPERATION_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    operation: str
    sources: _containers.RepeatedCompositeFieldContainer[SourceRef]
    artifacts: _containers.RepeatedCompositeFieldContainer[ArtifactRef]
    def __init__(self, operation: _Optional[str] = ..., sources: _Optional[_Iterable[_Union[SourceRef, _Mapping]]] = ..., artifacts: _Optional[_Iterable[_Union[ArtifactRef, _Mapping]]] = ...) -> None: ...

class EntryVersion(_message.Message):
    __slots__ = ("memory_artifact_id", "entry_id", "entry_version_id", "version", "previous_version_id", "kind", "text", "source_refs", "artifact_refs", "entry_content_hash", "created_in_revision", "description", "tags")
    MEMORY_ARTIFACT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REFS_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_REFS_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    CREATED_IN_REVISION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    memory_artifact_id: str
    entry_id: str
    entry_version_id: str
    version: int
    previous_version_id: str
    kind: str
    text: str
    source_refs: _containers.RepeatedCompositeFieldContainer[SourceRef]
    artifact_refs: _containers.RepeatedCompositeFieldContainer[ArtifactRef]
    entry_content_hash: str
    created_in_revision: int
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory_artifact_id: _Optional[str] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ..., version: _Optional[int] = ..., previous_version_id: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., source_refs: _Optional[_Iterable[_Union[SourceRef, _Mapping]]] = ..., artifact_refs: _Optional[_Iterable[_Union[ArtifactRef, _Mapping]]] = ..., entry_content_hash: _Optional[str] = ..., created_in_revision: _Optional[int] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class EntryRef(_message.Message):
    __slots__ = ("entry_id", "entry_version_id")
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    entry_id: str
    entry_version_id: str
    def __init__(self, entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ...) -> None: ...

class EntryInput(_message.Message):
    __slots__ = ("entry", "kind", "text", "sources", "artifacts", "reason", "description", "tags")
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    entry: EntryRef
    kind: str
    text: str
    sources: _containers.RepeatedCompositeFieldContainer[SourceRef]
    artifacts: _containers.RepeatedCompositeFieldContainer[ArtifactRef]
    reason: str
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, entry: _Optional[_Union[EntryRef, _Mapping]] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., sources: _Optional[_Iterable[_Union[SourceRef, _Mapping]]] = ..., artifacts: _Optional[_Iterable[_Union[ArtifactRef, _Mapping]]] = ..., reason: _Optional[str] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ...) -> None: ...

class Citation(_message.Message):
    __slots__ = ("memory_ref", "entry_id", "entry_version_id")
    MEMORY_REF_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    memory_ref: ArtifactRef
    entry_id: str
    entry_version_id: str
    def __init__(self, memory_ref: _Optional[_Union[ArtifactRef, _Mapping]] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ...) -> None: ...

class Hit(_message.Message):
    __slots__ = ("memory_ref", "entry_id", "entry_version_id", "entry_content_hash", "kind", "text", "score", "matched_by", "description", "tags", "channel_ranks")
    MEMORY_REF_FIELD_NUMBER: _ClassVar[int]
    ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_VERSION_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    MATCHED_BY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    CHANNEL_RANKS_FIELD_NUMBER: _ClassVar[int]
    memory_ref: ArtifactRef
    entry_id: str
    entry_version_id: str
    entry_content_hash: str
    kind: str
    text: str
    score: float
    matched_by: _containers.RepeatedScalarFieldContainer[SearchChannel]
    description: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    channel_ranks: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, memory_ref: _Optional[_Union[ArtifactRef, _Mapping]] = ..., entry_id: _Optional[str] = ..., entry_version_id: _Optional[str] = ..., entry_content_hash: _Optional[str] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., score: _Optional[float] = ..., matched_by: _Optional[_Iterable[_Union[SearchChannel, str]]] = ..., description: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., channel_ranks: _Optional[_Iterable[int]] = ...) -> None: ...

class ListedEntry(_message.Message):
    __slots__ = ("citation", "kind", "description", "status", "tags", "entry_content_hash", "merged_into_entry_id", "text")
    CITATION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    ENTRY_CONTENT_HASH_FIELD_NUMBER: _ClassVar[int]
    MERGED_INTO_ENTRY_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    citation: Citation
    kind: str
    description: str
    status: EntryStatus
    tags: _containers.RepeatedScalarFieldContainer[str]
    entry_content_hash: str
    merged_into_entry_id: str
    text: str
    def __init__(self, citation: _Optional[_Union[Citation, _Mapping]] = ..., kind: _Optional[str] = ..., description: _Optional[str] = ..., status: _Optional[_Union[EntryStatus, str]] = ..., tags: _Optional[_Iterable[str]] = ..., entry_content_hash: _Optional[str] = ..., merged_into_entry_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class RestoreOutcome(_message.Message):
    __slots__ = ("restored", "retired", "undone_merge_results")
    RESTORED_FIELD_NUMBER: _ClassVar[int]
    RETIRED_FIELD_NUMBER: _ClassVar[int]
    UNDONE_MERGE_RESULTS_FIELD_NUMBER: _ClassVar[int]
    restored: _containers.RepeatedCompositeFieldContainer[EntryRef]
    retired: _containers.RepeatedCompositeFieldContainer[EntryRef]
    undone_merge_results: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, restored: _Optional[_Iterable[_Union[EntryRef, _Mapping]]] = ..., retired: _Optional[_Iterable[_Union[EntryRef, _Mapping]]] = ..., undone_merge_results: _Optional[_Iterable[str]] = ...) -> None: ...

class EmbeddingProfile(_message.Message):
    __slots__ = ("profile_id", "model", "dimension", "distance", "normalization")
    PROFILE_ID_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    NORMALIZATION_FIELD_NUMBER: _ClassVar[int]
    profile_id: str
    model: str
    dimension: int
    distance: str
    normalization: str
    def __init__(self, profile_id: _Optional[str] = ..., model: _Optional[str] = ..., dimension: _Optional[int] = ..., distance: _Optional[str] = ..., normalization: _Optional[str] = ...) -> None: ...

class Capabilities(_message.Message):
    __slots__ = ("fts", "vector", "hybrid", "embedding_profile", "candidate_extraction", "change_follow", "backend", "analyzer", "vector_unavailable_reason", "fts_unavailable_reason", "engine_version", "candidate_adapters", "candidate_extractors")
    FTS_FIELD_NUMBER: _ClassVar[int]
    VECTOR_FIELD_NUMBER: _ClassVar[int]
    HYBRID_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_PROFILE_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_EXTRACTION_FIELD_NUMBER: _ClassVar[int]
    CHANGE_FOLLOW_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    ANALYZER_FIELD_NUMBER: _ClassVar[int]
    VECTOR_UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    FTS_UNAVAILABLE_REASON_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_ADAPTERS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATE_EXTRACTORS_FIELD_NUMBER: _ClassVar[int]
    fts: bool
    vector: bool
    hybrid: bool
    embedding_profile: EmbeddingProfile
    candidate_extraction: bool
    change_follow: bool
    backend: str
    analyzer: str
    vector_unavailable_reason: str
    fts_unavailable_reason: str
    engine_version: str
    candidate_adapters: _containers.RepeatedScalarFieldContainer[str]
    candidate_extractors: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, fts: _Optional[bool] = ..., vector: _Optional[bool] = ..., hybrid: _Optional[bool] = ..., embedding_profile: _Optional[_Union[EmbeddingProfile, _Mapping]] = ..., candidate_extraction: _Optional[bool] = ..., change_follow: _Optional[bool] = ..., backend: _Optional[str] = ..., analyzer: _Optional[str] = ..., vector_unavailable_reason: _Optional[str] = ..., fts_unavailable_reason: _Optional[str] = ..., engine_version: _Optional[str] = ..., candidate_adapters: _Optional[_Iterable[str]] = ..., candidate_extractors: _Optional[_Iterable[str]] = ...) -> None: ...

class Suggestion(_message.Message):
    __slots__ = ("kind", "entries", "adapter", "reason", "sources")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    ADAPTER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    kind: SuggestionKind
    entries: _containers.RepeatedCompositeFieldContainer[EntryRef]
    adapter: str
    reason: str
    sources: _containers.RepeatedCompositeFieldContainer[SourceRef]
    def __init__(self, kind: _Optional[_Union[SuggestionKind, str]] = ..., entries: _Optional[_Iterable[_Union[EntryRef, _Mapping]]] = ..., adapter: _Optional[str] = ..., reason: _Optional[str] = ..., sources: _Optional[_Iterable[_Union[SourceRef, _Mapping]]] = ...) -> None: ...

class ContextEntry(_message.Message):
    __slots__ = ("citation", "kind", "text", "section")
    CITATION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SECTION_FIELD_NUMBER: _ClassVar[int]
    citation: Citation
    kind: str
    text: str
    section: ContextSection
    def __init__(self, citation: _Optional[_Union[Citation, _Mapping]] = ..., kind: _Optional[str] = ..., text: _Optional[str] = ..., section: _Optional[_Union[ContextSection, str]] = ...) -> None: ...
