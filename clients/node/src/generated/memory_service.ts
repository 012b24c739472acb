import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from './powercontext/memory/v1/ArtifactRef';
import type { Capabilities as _powercontext_memory_v1_Capabilities, Capabilities__Output as _powercontext_memory_v1_Capabilities__Output } from './powercontext/memory/v1/Capabilities';
import type { ChangesProgress as _powercontext_memory_v1_ChangesProgress, ChangesProgress__Output as _powercontext_memory_v1_ChangesProgress__Output } from './powercontext/memory/v1/ChangesProgress';
import type { ChangesRequest as _powercontext_memory_v1_ChangesRequest, ChangesRequest__Output as _powercontext_memory_v1_ChangesRequest__Output } from './powercontext/memory/v1/ChangesRequest';
import type { ChangesResponse as _powercontext_memory_v1_ChangesResponse, ChangesResponse__Output as _powercontext_memory_v1_ChangesResponse__Output } from './powercontext/memory/v1/ChangesResponse';
import type { Citation as _powercontext_memory_v1_Citation, Citation__Output as _powercontext_memory_v1_Citation__Output } from './powercontext/memory/v1/Citation';
import type { ContextEntry as _powercontext_memory_v1_ContextEntry, ContextEntry__Output as _powercontext_memory_v1_ContextEntry__Output } from './powercontext/memory/v1/ContextEntry';
import type { EmbeddingProfile as _powercontext_memory_v1_EmbeddingProfile, EmbeddingProfile__Output as _powercontext_memory_v1_EmbeddingProfile__Output } from './powercontext/memory/v1/EmbeddingProfile';
import type { EntryInput as _powercontext_memory_v1_EntryInput, EntryInput__Output as _powercontext_memory_v1_EntryInput__Output } from './powercontext/memory/v1/EntryInput';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from './powercontext/memory/v1/EntryRef';
import type { EntryResult as _powercontext_memory_v1_EntryResult, EntryResult__Output as _powercontext_memory_v1_EntryResult__Output } from './powercontext/memory/v1/EntryResult';
import type { EntryVersion as _powercontext_memory_v1_EntryVersion, EntryVersion__Output as _powercontext_memory_v1_EntryVersion__Output } from './powercontext/memory/v1/EntryVersion';
import type { ExpandRequest as _powercontext_memory_v1_ExpandRequest, ExpandRequest__Output as _powercontext_memory_v1_ExpandRequest__Output } from './powercontext/memory/v1/ExpandRequest';
import type { ExpandResponse as _powercontext_memory_v1_ExpandResponse, ExpandResponse__Output as _powercontext_memory_v1_ExpandResponse__Output } from './powercontext/memory/v1/ExpandResponse';
import type { ExpandedEntry as _powercontext_memory_v1_ExpandedEntry, ExpandedEntry__Output as _powercontext_memory_v1_ExpandedEntry__Output } from './powercontext/memory/v1/ExpandedEntry';
import type { ForgetRequest as _powercontext_memory_v1_ForgetRequest, ForgetRequest__Output as _powercontext_memory_v1_ForgetRequest__Output } from './powercontext/memory/v1/ForgetRequest';
import type { ForgetResponse as _powercontext_memory_v1_ForgetResponse, ForgetResponse__Output as _powercontext_memory_v1_ForgetResponse__Output } from './powercontext/memory/v1/ForgetResponse';
import type { GetCapabilitiesRequest as _powercontext_memory_v1_GetCapabilitiesRequest, GetCapabilitiesRequest__Output as _powercontext_memory_v1_GetCapabilitiesRequest__Output } from './powercontext/memory/v1/GetCapabilitiesRequest';
import type { GetCapabilitiesResponse as _powercontext_memory_v1_GetCapabilitiesResponse, GetCapabilitiesResponse__Output as _powercontext_memory_v1_GetCapabilitiesResponse__Output } from './powercontext/memory/v1/GetCapabilitiesResponse';
import type { GetMemoryRequest as _powercontext_memory_v1_GetMemoryRequest, GetMemoryRequest__Output as _powercontext_memory_v1_GetMemoryRequest__Output } from './powercontext/memory/v1/GetMemoryRequest';
import type { GetMemoryResponse as _powercontext_memory_v1_GetMemoryResponse, GetMemoryResponse__Output as _powercontext_memory_v1_GetMemoryResponse__Output } from './powercontext/memory/v1/GetMemoryResponse';
import type { GetRecallManifestRequest as _powercontext_memory_v1_GetRecallManifestRequest, GetRecallManifestRequest__Output as _powercontext_memory_v1_GetRecallManifestRequest__Output } from './powercontext/memory/v1/GetRecallManifestRequest';
import type { GetRecallManifestResponse as _powercontext_memory_v1_GetRecallManifestResponse, GetRecallManifestResponse__Output as _powercontext_memory_v1_GetRecallManifestResponse__Output } from './powercontext/memory/v1/GetRecallManifestResponse';
import type { GetSourceRequest as _powercontext_memory_v1_GetSourceRequest, GetSourceRequest__Output as _powercontext_memory_v1_GetSourceRequest__Output } from './powercontext/memory/v1/GetSourceRequest';
import type { GetSourceResponse as _powercontext_memory_v1_GetSourceResponse, GetSourceResponse__Output as _powercontext_memory_v1_GetSourceResponse__Output } from './powercontext/memory/v1/GetSourceResponse';
import type { Hit as _powercontext_memory_v1_Hit, Hit__Output as _powercontext_memory_v1_Hit__Output } from './powercontext/memory/v1/Hit';
import type { Lineage as _powercontext_memory_v1_Lineage, Lineage__Output as _powercontext_memory_v1_Lineage__Output } from './powercontext/memory/v1/Lineage';
import type { ListEntriesRequest as _powercontext_memory_v1_ListEntriesRequest, ListEntriesRequest__Output as _powercontext_memory_v1_ListEntriesRequest__Output } from './powercontext/memory/v1/ListEntriesRequest';
import type { ListEntriesResponse as _powercontext_memory_v1_ListEntriesResponse, ListEntriesResponse__Output as _powercontext_memory_v1_ListEntriesResponse__Output } from './powercontext/memory/v1/ListEntriesResponse';
import type { ListMemoriesRequest as _powercontext_memory_v1_ListMemoriesRequest, ListMemoriesRequest__Output as _powercontext_memory_v1_ListMemoriesRequest__Output } from './powercontext/memory/v1/ListMemoriesRequest';
import type { ListMemoriesResponse as _powercontext_memory_v1_ListMemoriesResponse, ListMemoriesResponse__Output as _powercontext_memory_v1_ListMemoriesResponse__Output } from './powercontext/memory/v1/ListMemoriesResponse';
import type { ListedEntry as _powercontext_memory_v1_ListedEntry, ListedEntry__Output as _powercontext_memory_v1_ListedEntry__Output } from './powercontext/memory/v1/ListedEntry';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from './powercontext/memory/v1/MemoryChange';
import type { MemoryContent as _powercontext_memory_v1_MemoryContent, MemoryContent__Output as _powercontext_memory_v1_MemoryContent__Output } from './powercontext/memory/v1/MemoryContent';
import type { MemoryManifest as _powercontext_memory_v1_MemoryManifest, MemoryManifest__Output as _powercontext_memory_v1_MemoryManifest__Output } from './powercontext/memory/v1/MemoryManifest';
import type { MemoryManifestEntry as _powercontext_memory_v1_MemoryManifestEntry, MemoryManifestEntry__Output as _powercontext_memory_v1_MemoryManifestEntry__Output } from './powercontext/memory/v1/MemoryManifestEntry';
import type { MemoryServiceClient as _powercontext_memory_v1_MemoryServiceClient, MemoryServiceDefinition as _powercontext_memory_v1_MemoryServiceDefinition } from './powercontext/memory/v1/MemoryService';
import type { MemorySummary as _powercontext_memory_v1_MemorySummary, MemorySummary__Output as _powercontext_memory_v1_MemorySummary__Output } from './powercontext/memory/v1/MemorySummary';
import type { MergeRequest as _powercontext_memory_v1_MergeRequest, MergeRequest__Output as _powercontext_memory_v1_MergeRequest__Output } from './powercontext/memory/v1/MergeRequest';
import type { MergeResponse as _powercontext_memory_v1_MergeResponse, MergeResponse__Output as _powercontext_memory_v1_MergeResponse__Output } from './powercontext/memory/v1/MergeResponse';
import type { OrganizeRequest as _powercontext_memory_v1_OrganizeRequest, OrganizeRequest__Output as _powercontext_memory_v1_OrganizeRequest__Output } from './powercontext/memory/v1/OrganizeRequest';
import type { OrganizeResponse as _powercontext_memory_v1_OrganizeResponse, OrganizeResponse__Output as _powercontext_memory_v1_OrganizeResponse__Output } from './powercontext/memory/v1/OrganizeResponse';
import type { PrepareContextRequest as _powercontext_memory_v1_PrepareContextRequest, PrepareContextRequest__Output as _powercontext_memory_v1_PrepareContextRequest__Output } from './powercontext/memory/v1/PrepareContextRequest';
import type { PrepareContextResponse as _powercontext_memory_v1_PrepareContextResponse, PrepareContextResponse__Output as _powercontext_memory_v1_PrepareContextResponse__Output } from './powercontext/memory/v1/PrepareContextResponse';
import type { PreviewRestoreRequest as _powercontext_memory_v1_PreviewRestoreRequest, PreviewRestoreRequest__Output as _powercontext_memory_v1_PreviewRestoreRequest__Output } from './powercontext/memory/v1/PreviewRestoreRequest';
import type { PreviewRestoreResponse as _powercontext_memory_v1_PreviewRestoreResponse, PreviewRestoreResponse__Output as _powercontext_memory_v1_PreviewRestoreResponse__Output } from './powercontext/memory/v1/PreviewRestoreResponse';
import type { PutSourceRequest as _powercontext_memory_v1_PutSourceRequest, PutSourceRequest__Output as _powercontext_memory_v1_PutSourceRequest__Output } from './powercontext/memory/v1/PutSourceRequest';
import type { PutSourceResponse as _powercontext_memory_v1_PutSourceResponse, PutSourceResponse__Output as _powercontext_memory_v1_PutSourceResponse__Output } from './powercontext/memory/v1/PutSourceResponse';
import type { ReactivateRequest as _powercontext_memory_v1_ReactivateRequest, ReactivateRequest__Output as _powercontext_memory_v1_ReactivateRequest__Output } from './powercontext/memory/v1/ReactivateRequest';
import type { ReactivateResponse as _powercontext_memory_v1_ReactivateResponse, ReactivateResponse__Output as _powercontext_memory_v1_ReactivateResponse__Output } from './powercontext/memory/v1/ReactivateResponse';
import type { RememberRequest as _powercontext_memory_v1_RememberRequest, RememberRequest__Output as _powercontext_memory_v1_RememberRequest__Output } from './powercontext/memory/v1/RememberRequest';
import type { RememberResponse as _powercontext_memory_v1_RememberResponse, RememberResponse__Output as _powercontext_memory_v1_RememberResponse__Output } from './powercontext/memory/v1/RememberResponse';
import type { RestoreOutcome as _powercontext_memory_v1_RestoreOutcome, RestoreOutcome__Output as _powercontext_memory_v1_RestoreOutcome__Output } from './powercontext/memory/v1/RestoreOutcome';
import type { RestoreRequest as _powercontext_memory_v1_RestoreRequest, RestoreRequest__Output as _powercontext_memory_v1_RestoreRequest__Output } from './powercontext/memory/v1/RestoreRequest';
import type { RestoreResponse as _powercontext_memory_v1_RestoreResponse, RestoreResponse__Output as _powercontext_memory_v1_RestoreResponse__Output } from './powercontext/memory/v1/RestoreResponse';
import type { RevisionChanges as _powercontext_memory_v1_RevisionChanges, RevisionChanges__Output as _powercontext_memory_v1_RevisionChanges__Output } from './powercontext/memory/v1/RevisionChanges';
import type { SearchRequest as _powercontext_memory_v1_SearchRequest, SearchRequest__Output as _powercontext_memory_v1_SearchRequest__Output } from './powercontext/memory/v1/SearchRequest';
import type { SearchResponse as _powercontext_memory_v1_SearchResponse, SearchResponse__Output as _powercontext_memory_v1_SearchResponse__Output } from './powercontext/memory/v1/SearchResponse';
import type { SetMemoryLabelRequest as _powercontext_memory_v1_SetMemoryLabelRequest, SetMemoryLabelRequest__Output as _powercontext_memory_v1_SetMemoryLabelRequest__Output } from './powercontext/memory/v1/SetMemoryLabelRequest';
import type { SetMemoryLabelResponse as _powercontext_memory_v1_SetMemoryLabelResponse, SetMemoryLabelResponse__Output as _powercontext_memory_v1_SetMemoryLabelResponse__Output } from './powercontext/memory/v1/SetMemoryLabelResponse';
import type { Source as _powercontext_memory_v1_Source, Source__Output as _powercontext_memory_v1_Source__Output } from './powercontext/memory/v1/Source';
import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from './powercontext/memory/v1/SourceRef';
import type { Suggestion as _powercontext_memory_v1_Suggestion, Suggestion__Output as _powercontext_memory_v1_Suggestion__Output } from './powercontext/memory/v1/Suggestion';
import type { UndoMergeRequest as _powercontext_memory_v1_UndoMergeRequest, UndoMergeRequest__Output as _powercontext_memory_v1_UndoMergeRequest__Output } from './powercontext/memory/v1/UndoMergeRequest';
import type { UndoMergeResponse as _powercontext_memory_v1_UndoMergeResponse, UndoMergeResponse__Output as _powercontext_memory_v1_UndoMergeResponse__Output } from './powercontext/memory/v1/UndoMergeResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
  }
  powercontext: {
    memory: {
      v1: {
        ArtifactRef: MessageTypeDefinition<_powercontext_memory_v1_ArtifactRef, _powercontext_memory_v1_ArtifactRef__Output>
        Capabilities: MessageTypeDefinition<_powercontext_memory_v1_Capabilities, _powercontext_memory_v1_Capabilities__Output>
        ChangeOp: EnumTypeDefinition
        ChangesProgress: MessageTypeDefinition<_powercontext_memory_v1_ChangesProgress, _powercontext_memory_v1_ChangesProgress__Output>
        ChangesRequest: MessageTypeDefinition<_powercontext_memory_v1_ChangesRequest, _powercontext_memory_v1_ChangesRequest__Output>
        ChangesResponse: MessageTypeDefinition<_powercontext_memory_v1_ChangesResponse, _powercontext_memory_v1_ChangesResponse__Output>
        Citation: MessageTypeDefinition<_powercontext_memory_v1_Citation, _powercontext_memory_v1_Citation__Output>
        ContextEntry: MessageTypeDefinition<_powercontext_memory_v1_ContextEntry, _powercontext_memory_v1_ContextEntry__Output>
        ContextSection: EnumTypeDefinition
        EmbeddingProfile: MessageTypeDefinition<_powercontext_memory_v1_EmbeddingProfile, _powercontext_memory_v1_EmbeddingProfile__Output>
        EntryInput: MessageTypeDefinition<_powercontext_memory_v1_EntryInput, _powercontext_memory_v1_EntryInput__Output>
        EntryOutcome: EnumTypeDefinition
        EntryRef: MessageTypeDefinition<_powercontext_memory_v1_EntryRef, _powercontext_memory_v1_EntryRef__Output>
        EntryResult: MessageTypeDefinition<_powercontext_memory_v1_EntryResult, _powercontext_memory_v1_EntryResult__Output>
        EntryState: EnumTypeDefinition
        EntryStatus: EnumTypeDefinition
        EntryVersion: MessageTypeDefinition<_powercontext_memory_v1_EntryVersion, _powercontext_memory_v1_EntryVersion__Output>
        ExpandRequest: MessageTypeDefinition<_powercontext_memory_v1_ExpandRequest, _powercontext_memory_v1_ExpandRequest__Output>
        ExpandResponse: MessageTypeDefinition<_powercontext_memory_v1_ExpandResponse, _powercontext_memory_v1_ExpandResponse__Output>
        ExpandedEntry: MessageTypeDefinition<_powercontext_memory_v1_ExpandedEntry, _powercontext_memory_v1_ExpandedEntry__Output>
        ForgetRequest: MessageTypeDefinition<_powercontext_memory_v1_ForgetRequest, _powercontext_memory_v1_ForgetRequest__Output>
        ForgetResponse: MessageTypeDefinition<_powercontext_memory_v1_ForgetResponse, _powercontext_memory_v1_ForgetResponse__Output>
        GetCapabilitiesRequest: MessageTypeDefinition<_powercontext_memory_v1_GetCapabilitiesRequest, _powercontext_memory_v1_GetCapabilitiesRequest__Output>
        GetCapabilitiesResponse: MessageTypeDefinition<_powercontext_memory_v1_GetCapabilitiesResponse, _powercontext_memory_v1_GetCapabilitiesResponse__Output>
        GetMemoryRequest: MessageTypeDefinition<_powercontext_memory_v1_GetMemoryRequest, _powercontext_memory_v1_GetMemoryRequest__Output>
        GetMemoryResponse: MessageTypeDefinition<_powercontext_memory_v1_GetMemoryResponse, _powercontext_memory_v1_GetMemoryResponse__Output>
        GetRecallManifestRequest: MessageTypeDefinition<_powercontext_memory_v1_GetRecallManifestRequest, _powercontext_memory_v1_GetRecallManifestRequest__Output>
        GetRecallManifestResponse: MessageTypeDefinition<_powercontext_memory_v1_GetRecallManifestResponse, _powercontext_memory_v1_GetRecallManifestResponse__Output>
        GetSourceRequest: MessageTypeDefinition<_powercontext_memory_v1_GetSourceRequest, _powercontext_memory_v1_GetSourceRequest__Output>
        GetSourceResponse: MessageTypeDefinition<_powercontext_memory_v1_GetSourceResponse, _powercontext_memory_v1_GetSourceResponse__Output>
        Hit: MessageTypeDefinition<_powercontext_memory_v1_Hit, _powercontext_memory_v1_Hit__Output>
        Lineage: MessageTypeDefinition<_powercontext_memory_v1_Lineage, _powercontext_memory_v1_Lineage__Output>
        ListEntriesRequest: MessageTypeDefinition<_powercontext_memory_v1_ListEntriesRequest, _powercontext_memory_v1_ListEntriesRequest__Output>
        ListEntriesResponse: MessageTypeDefinition<_powercontext_memory_v1_ListEntriesResponse, _powercontext_memory_v1_ListEntriesResponse__Output>
        ListMemoriesRequest: MessageTypeDefinition<_powercontext_memory_v1_ListMemoriesRequest, _powercontext_memory_v1_ListMemoriesRequest__Output>
        ListMemoriesResponse: MessageTypeDefinition<_powercontext_memory_v1_ListMemoriesResponse, _powercontext_memory_v1_ListMemoriesResponse__Output>
        ListedEntry: MessageTypeDefinition<_powercontext_memory_v1_ListedEntry, _powercontext_memory_v1_ListedEntry__Output>
        MemoryChange: MessageTypeDefinition<_powercontext_memory_v1_MemoryChange, _powercontext_memory_v1_MemoryChange__Output>
        MemoryContent: MessageTypeDefinition<_powercontext_memory_v1_MemoryContent, _powercontext_memory_v1_MemoryContent__Output>
        MemoryManifest: MessageTypeDefinition<_powercontext_memory_v1_MemoryManifest, _powercontext_memory_v1_MemoryManifest__Output>
        MemoryManifestEntry: MessageTypeDefinition<_powercontext_memory_v1_MemoryManifestEntry, _powercontext_memory_v1_MemoryManifestEntry__Output>
        /**
         * Versioned, auditable memory for coding agents.
         * 
         * Every write creates a new immutable revision by compare-and-swap on the memory's head:
         * a write based on a revision that is no longer the head fails with ABORTED and changes nothing.
         * Errors carry google.rpc.Status details (ErrorInfo with a stable reason, BadRequest naming the
         * field) in the grpc-status-details-bin trailer.
         */
        MemoryService: SubtypeConstructor<typeof grpc.Client, _powercontext_memory_v1_MemoryServiceClient> & { service: _powercontext_memory_v1_MemoryServiceDefinition }
        MemorySummary: MessageTypeDefinition<_powercontext_memory_v1_MemorySummary, _powercontext_memory_v1_MemorySummary__Output>
        MergeRequest: MessageTypeDefinition<_powercontext_memory_v1_MergeRequest, _powercontext_memory_v1_MergeRequest__Output>
        MergeResponse: MessageTypeDefinition<_powercontext_memory_v1_MergeResponse, _powercontext_memory_v1_MergeResponse__Output>
        OrganizeRequest: MessageTypeDefinition<_powercontext_memory_v1_OrganizeRequest, _powercontext_memory_v1_OrganizeRequest__Output>
        OrganizeResponse: MessageTypeDefinition<_powercontext_memory_v1_OrganizeResponse, _powercontext_memory_v1_OrganizeResponse__Output>
        OrganizeStep: EnumTypeDefinition
        PrepareContextRequest: MessageTypeDefinition<_powercontext_memory_v1_PrepareContextRequest, _powercontext_memory_v1_PrepareContextRequest__Output>
        PrepareContextResponse: MessageTypeDefinition<_powercontext_memory_v1_PrepareContextResponse, _powercontext_memory_v1_PrepareContextResponse__Output>
        PreviewRestoreRequest: MessageTypeDefinition<_powercontext_memory_v1_PreviewRestoreRequest, _powercontext_memory_v1_PreviewRestoreRequest__Output>
        PreviewRestoreResponse: MessageTypeDefinition<_powercontext_memory_v1_PreviewRestoreResponse, _powercontext_memory_v1_PreviewRestoreResponse__Output>
        PutSourceRequest: MessageTypeDefinition<_powercontext_memory_v1_PutSourceRequest, _powercontext_memory_v1_PutSourceRequest__Output>
        PutSourceResponse: MessageTypeDefinition<_powercontext_memory_v1_PutSourceResponse, _powercontext_memory_v1_PutSourceResponse__Output>
        ReactivateRequest: MessageTypeDefinition<_powercontext_memory_v1_ReactivateRequest, _powercontext_memory_v1_ReactivateRequest__Output>
        ReactivateResponse: MessageTypeDefinition<_powercontext_memory_v1_ReactivateResponse, _powercontext_memory_v1_ReactivateResponse__Output>
        RecallManifestCode: EnumTypeDefinition
        RememberMode: EnumTypeDefinition
        RememberRequest: MessageTypeDefinition<_powercontext_memory_v1_RememberRequest, _powercontext_memory_v1_RememberRequest__Output>
        RememberResponse: MessageTypeDefinition<_powercontext_memory_v1_RememberResponse, _powercontext_memory_v1_RememberResponse__Output>
        RestoreOperation: EnumTypeDefinition
        RestoreOutcome: MessageTypeDefinition<_powercontext_memory_v1_RestoreOutcome, _powercontext_memory_v1_RestoreOutcome__Output>
        RestoreRequest: MessageTypeDefinition<_powercontext_memory_v1_RestoreRequest, _powercontext_memory_v1_RestoreRequest__Output>
        RestoreResponse: MessageTypeDefinition<_powercontext_memory_v1_RestoreResponse, _powercontext_memory_v1_RestoreResponse__Output>
        RevisionChanges: MessageTypeDefinition<_powercontext_memory_v1_RevisionChanges, _powercontext_memory_v1_RevisionChanges__Output>
        SearchChannel: EnumTypeDefinition
        SearchMode: EnumTypeDefinition
        SearchRequest: MessageTypeDefinition<_powercontext_memory_v1_SearchRequest, _powercontext_memory_v1_SearchRequest__Output>
        SearchResponse: MessageTypeDefinition<_powercontext_memory_v1_SearchResponse, _powercontext_memory_v1_SearchResponse__Output>
        SetMemoryLabelRequest: MessageTypeDefinition<_powercontext_memory_v1_SetMemoryLabelRequest, _powercontext_memory_v1_SetMemoryLabelRequest__Output>
        SetMemoryLabelResponse: MessageTypeDefinition<_powercontext_memory_v1_SetMemoryLabelResponse, _powercontext_memory_v1_SetMemoryLabelResponse__Output>
        Source: MessageTypeDefinition<_powercontext_memory_v1_Source, _powercontext_memory_v1_Source__Output>
        SourceRef: MessageTypeDefinition<_powercontext_memory_v1_SourceRef, _powercontext_memory_v1_SourceRef__Output>
        Suggestion: MessageTypeDefinition<_powercontext_memory_v1_Suggestion, _powercontext_memory_v1_Suggestion__Output>
        SuggestionKind: EnumTypeDefinition
        TagMatch: EnumTypeDefinition
        UndoMergeRequest: MessageTypeDefinition<_powercontext_memory_v1_UndoMergeRequest, _powercontext_memory_v1_UndoMergeRequest__Output>
        UndoMergeResponse: MessageTypeDefinition<_powercontext_memory_v1_UndoMergeResponse, _powercontext_memory_v1_UndoMergeResponse__Output>
      }
    }
  }
}

