// The public names of the generated message types. Responses and the messages inside them
// use the generated "__Output" types (every scalar present, int64 as number, enums by name);
// requests use the permissive input types (every field optional, enums by name or number).
// Keep in step with src/generated/ when the contract grows: the compiler flags a missing file.

export type { ArtifactRef__Output as ArtifactRef } from './generated/powercontext/memory/v1/ArtifactRef';
export type { Capabilities__Output as Capabilities } from './generated/powercontext/memory/v1/Capabilities';
export type { ChangesProgress__Output as ChangesProgress } from './generated/powercontext/memory/v1/ChangesProgress';
export type { ChangesResponse__Output as ChangesResponse } from './generated/powercontext/memory/v1/ChangesResponse';
export type { Citation__Output as Citation } from './generated/powercontext/memory/v1/Citation';
export type { EmbeddingProfile__Output as EmbeddingProfile } from './generated/powercontext/memory/v1/EmbeddingProfile';
export type { EntryRef__Output as EntryRef } from './generated/powercontext/memory/v1/EntryRef';
export type { EntryResult__Output as EntryResult } from './generated/powercontext/memory/v1/EntryResult';
export type { EntryVersion__Output as EntryVersion } from './generated/powercontext/memory/v1/EntryVersion';
export type { ExpandResponse__Output as ExpandResponse } from './generated/powercontext/memory/v1/ExpandResponse';
export type { ExpandedEntry__Output as ExpandedEntry } from './generated/powercontext/memory/v1/ExpandedEntry';
export type { ForgetResponse__Output as ForgetResponse } from './generated/powercontext/memory/v1/ForgetResponse';
export type { GetCapabilitiesResponse__Output as GetCapabilitiesResponse } from './generated/powercontext/memory/v1/GetCapabilitiesResponse';
export type { GetMemoryResponse__Output as GetMemoryResponse } from './generated/powercontext/memory/v1/GetMemoryResponse';
export type { GetSourceResponse__Output as GetSourceResponse } from './generated/powercontext/memory/v1/GetSourceResponse';
export type { Hit__Output as Hit } from './generated/powercontext/memory/v1/Hit';
export type { Lineage__Output as Lineage } from './generated/powercontext/memory/v1/Lineage';
export type { MemoryChange__Output as MemoryChange } from './generated/powercontext/memory/v1/MemoryChange';
export type { MemoryContent__Output as MemoryContent } from './generated/powercontext/memory/v1/MemoryContent';
export type { MemoryManifest__Output as MemoryManifest } from './generated/powercontext/memory/v1/MemoryManifest';
export type { MemoryManifestEntry__Output as MemoryManifestEntry } from './generated/powercontext/memory/v1/MemoryManifestEntry';
export type { OrganizeResponse__Output as OrganizeResponse } from './generated/powercontext/memory/v1/OrganizeResponse';
export type { PutSourceResponse__Output as PutSourceResponse } from './generated/powercontext/memory/v1/PutSourceResponse';
export type { ReactivateResponse__Output as ReactivateResponse } from './generated/powercontext/memory/v1/ReactivateResponse';
export type { RememberResponse__Output as RememberResponse } from './generated/powercontext/memory/v1/RememberResponse';
export type { RevisionChanges__Output as RevisionChanges } from './generated/powercontext/memory/v1/RevisionChanges';
export type { SearchResponse__Output as SearchResponse } from './generated/powercontext/memory/v1/SearchResponse';
export type { PrepareContextResponse__Output as PrepareContextResponse } from './generated/powercontext/memory/v1/PrepareContextResponse';
export type { ContextEntry__Output as ContextEntry } from './generated/powercontext/memory/v1/ContextEntry';
export type { Source__Output as Source } from './generated/powercontext/memory/v1/Source';
export type { SourceRef__Output as SourceRef } from './generated/powercontext/memory/v1/SourceRef';

// Listing, merge and restore.
export type { GetRecallManifestResponse__Output as GetRecallManifestResponse } from './generated/powercontext/memory/v1/GetRecallManifestResponse';
export type { ListEntriesResponse__Output as ListEntriesResponse } from './generated/powercontext/memory/v1/ListEntriesResponse';
export type { ListedEntry__Output as ListedEntry } from './generated/powercontext/memory/v1/ListedEntry';
export type { MergeResponse__Output as MergeResponse } from './generated/powercontext/memory/v1/MergeResponse';
export type { RestoreOutcome__Output as RestoreOutcome } from './generated/powercontext/memory/v1/RestoreOutcome';
export type { RestoreResponse__Output as RestoreResponse } from './generated/powercontext/memory/v1/RestoreResponse';
export type { UndoMergeResponse__Output as UndoMergeResponse } from './generated/powercontext/memory/v1/UndoMergeResponse';
export type { PreviewRestoreResponse__Output as PreviewRestoreResponse } from './generated/powercontext/memory/v1/PreviewRestoreResponse';
export type { ListMemoriesResponse__Output as ListMemoriesResponse } from './generated/powercontext/memory/v1/ListMemoriesResponse';
export type { MemorySummary__Output as MemorySummary } from './generated/powercontext/memory/v1/MemorySummary';
export type { SetMemoryLabelResponse__Output as SetMemoryLabelResponse } from './generated/powercontext/memory/v1/SetMemoryLabelResponse';

export type { ChangesRequest } from './generated/powercontext/memory/v1/ChangesRequest';
export type { ExpandRequest } from './generated/powercontext/memory/v1/ExpandRequest';
export type { ForgetRequest } from './generated/powercontext/memory/v1/ForgetRequest';
export type { GetCapabilitiesRequest } from './generated/powercontext/memory/v1/GetCapabilitiesRequest';
export type { GetMemoryRequest } from './generated/powercontext/memory/v1/GetMemoryRequest';
export type { GetSourceRequest } from './generated/powercontext/memory/v1/GetSourceRequest';
export type { OrganizeRequest } from './generated/powercontext/memory/v1/OrganizeRequest';
export type { PutSourceRequest } from './generated/powercontext/memory/v1/PutSourceRequest';
export type { ReactivateRequest } from './generated/powercontext/memory/v1/ReactivateRequest';
export type { RememberRequest } from './generated/powercontext/memory/v1/RememberRequest';
export type { SearchRequest } from './generated/powercontext/memory/v1/SearchRequest';
export type { PrepareContextRequest } from './generated/powercontext/memory/v1/PrepareContextRequest';
export type { GetRecallManifestRequest } from './generated/powercontext/memory/v1/GetRecallManifestRequest';
export type { ListEntriesRequest } from './generated/powercontext/memory/v1/ListEntriesRequest';
export type { MergeRequest } from './generated/powercontext/memory/v1/MergeRequest';
export type { RestoreRequest } from './generated/powercontext/memory/v1/RestoreRequest';
export type { UndoMergeRequest } from './generated/powercontext/memory/v1/UndoMergeRequest';
export type { PreviewRestoreRequest } from './generated/powercontext/memory/v1/PreviewRestoreRequest';
export type { ListMemoriesRequest } from './generated/powercontext/memory/v1/ListMemoriesRequest';
export type { SetMemoryLabelRequest } from './generated/powercontext/memory/v1/SetMemoryLabelRequest';

export type { EntryInput } from './generated/powercontext/memory/v1/EntryInput';
export type { ArtifactRef as ArtifactRefInput } from './generated/powercontext/memory/v1/ArtifactRef';
export type { Citation as CitationInput } from './generated/powercontext/memory/v1/Citation';
export type { EntryRef as EntryRefInput } from './generated/powercontext/memory/v1/EntryRef';
export type { SourceRef as SourceRefInput } from './generated/powercontext/memory/v1/SourceRef';

// Enums: a value object (SearchMode.SEARCH_MODE_FTS) and the type of its values.
export { ChangeOp } from './generated/powercontext/memory/v1/ChangeOp';
export { EntryOutcome } from './generated/powercontext/memory/v1/EntryOutcome';
export { EntryState } from './generated/powercontext/memory/v1/EntryState';
export { OrganizeStep } from './generated/powercontext/memory/v1/OrganizeStep';
export { RememberMode } from './generated/powercontext/memory/v1/RememberMode';
export { SearchChannel } from './generated/powercontext/memory/v1/SearchChannel';
export { ContextSection } from './generated/powercontext/memory/v1/ContextSection';
export { SearchMode } from './generated/powercontext/memory/v1/SearchMode';
export { EntryStatus } from './generated/powercontext/memory/v1/EntryStatus';
export { RecallManifestCode } from './generated/powercontext/memory/v1/RecallManifestCode';
export { RestoreOperation } from './generated/powercontext/memory/v1/RestoreOperation';
export { TagMatch } from './generated/powercontext/memory/v1/TagMatch';
export type { Timestamp__Output as Timestamp } from './generated/google/protobuf/Timestamp';
