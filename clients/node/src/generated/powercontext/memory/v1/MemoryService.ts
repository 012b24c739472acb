// Original file: powercontext/memory/v1/memory_service.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ChangesRequest as _powercontext_memory_v1_ChangesRequest, ChangesRequest__Output as _powercontext_memory_v1_ChangesRequest__Output } from '../../../powercontext/memory/v1/ChangesRequest';
import type { ChangesResponse as _powercontext_memory_v1_ChangesResponse, ChangesResponse__Output as _powercontext_memory_v1_ChangesResponse__Output } from '../../../powercontext/memory/v1/ChangesResponse';
import type { ExpandRequest as _powercontext_memory_v1_ExpandRequest, ExpandRequest__Output as _powercontext_memory_v1_ExpandRequest__Output } from '../../../powercontext/memory/v1/ExpandRequest';
import type { ExpandResponse as _powercontext_memory_v1_ExpandResponse, ExpandResponse__Output as _powercontext_memory_v1_ExpandResponse__Output } from '../../../powercontext/memory/v1/ExpandResponse';
import type { ForgetRequest as _powercontext_memory_v1_ForgetRequest, ForgetRequest__Output as _powercontext_memory_v1_ForgetRequest__Output } from '../../../powercontext/memory/v1/ForgetRequest';
import type { ForgetResponse as _powercontext_memory_v1_ForgetResponse, ForgetResponse__Output as _powercontext_memory_v1_ForgetResponse__Output } from '../../../powercontext/memory/v1/ForgetResponse';
import type { GetCapabilitiesRequest as _powercontext_memory_v1_GetCapabilitiesRequest, GetCapabilitiesRequest__Output as _powercontext_memory_v1_GetCapabilitiesRequest__Output } from '../../../powercontext/memory/v1/GetCapabilitiesRequest';
import type { GetCapabilitiesResponse as _powercontext_memory_v1_GetCapabilitiesResponse, GetCapabilitiesResponse__Output as _powercontext_memory_v1_GetCapabilitiesResponse__Output } from '../../../powercontext/memory/v1/GetCapabilitiesResponse';
import type { GetMemoryRequest as _powercontext_memory_v1_GetMemoryRequest, GetMemoryRequest__Output as _powercontext_memory_v1_GetMemoryRequest__Output } from '../../../powercontext/memory/v1/GetMemoryRequest';
import type { GetMemoryResponse as _powercontext_memory_v1_GetMemoryResponse, GetMemoryResponse__Output as _powercontext_memory_v1_GetMemoryResponse__Output } from '../../../powercontext/memory/v1/GetMemoryResponse';
import type { GetRecallManifestRequest as _powercontext_memory_v1_GetRecallManifestRequest, GetRecallManifestRequest__Output as _powercontext_memory_v1_GetRecallManifestRequest__Output } from '../../../powercontext/memory/v1/GetRecallManifestRequest';
import type { GetRecallManifestResponse as _powercontext_memory_v1_GetRecallManifestResponse, GetRecallManifestResponse__Output as _powercontext_memory_v1_GetRecallManifestResponse__Output } from '../../../powercontext/memory/v1/GetRecallManifestResponse';
import type { GetSourceRequest as _powercontext_memory_v1_GetSourceRequest, GetSourceRequest__Output as _powercontext_memory_v1_GetSourceRequest__Output } from '../../../powercontext/memory/v1/GetSourceRequest';
import type { GetSourceResponse as _powercontext_memory_v1_GetSourceResponse, GetSourceResponse__Output as _powercontext_memory_v1_GetSourceResponse__Output } from '../../../powercontext/memory/v1/GetSourceResponse';
import type { ListEntriesRequest as _powercontext_memory_v1_ListEntriesRequest, ListEntriesRequest__Output as _powercontext_memory_v1_ListEntriesRequest__Output } from '../../../powercontext/memory/v1/ListEntriesRequest';
import type { ListEntriesResponse as _powercontext_memory_v1_ListEntriesResponse, ListEntriesResponse__Output as _powercontext_memory_v1_ListEntriesResponse__Output } from '../../../powercontext/memory/v1/ListEntriesResponse';
import type { ListMemoriesRequest as _powercontext_memory_v1_ListMemoriesRequest, ListMemoriesRequest__Output as _powercontext_memory_v1_ListMemoriesRequest__Output } from '../../../powercontext/memory/v1/ListMemoriesRequest';
import type { ListMemoriesResponse as _powercontext_memory_v1_ListMemoriesResponse, ListMemoriesResponse__Output as _powercontext_memory_v1_ListMemoriesResponse__Output } from '../../../powercontext/memory/v1/ListMemoriesResponse';
import type { MergeRequest as _powercontext_memory_v1_MergeRequest, MergeRequest__Output as _powercontext_memory_v1_MergeRequest__Output } from '../../../powercontext/memory/v1/MergeRequest';
import type { MergeResponse as _powercontext_memory_v1_MergeResponse, MergeResponse__Output as _powercontext_memory_v1_MergeResponse__Output } from '../../../powercontext/memory/v1/MergeResponse';
import type { OrganizeRequest as _powercontext_memory_v1_OrganizeRequest, OrganizeRequest__Output as _powercontext_memory_v1_OrganizeRequest__Output } from '../../../powercontext/memory/v1/OrganizeRequest';
import type { OrganizeResponse as _powercontext_memory_v1_OrganizeResponse, OrganizeResponse__Output as _powercontext_memory_v1_OrganizeResponse__Output } from '../../../powercontext/memory/v1/OrganizeResponse';
import type { PrepareContextRequest as _powercontext_memory_v1_PrepareContextRequest, PrepareContextRequest__Output as _powercontext_memory_v1_PrepareContextRequest__Output } from '../../../powercontext/memory/v1/PrepareContextRequest';
import type { PrepareContextResponse as _powercontext_memory_v1_PrepareContextResponse, PrepareContextResponse__Output as _powercontext_memory_v1_PrepareContextResponse__Output } from '../../../powercontext/memory/v1/PrepareContextResponse';
import type { PreviewRestoreRequest as _powercontext_memory_v1_PreviewRestoreRequest, PreviewRestoreRequest__Output as _powercontext_memory_v1_PreviewRestoreRequest__Output } from '../../../powercontext/memory/v1/PreviewRestoreRequest';
import type { PreviewRestoreResponse as _powercontext_memory_v1_PreviewRestoreResponse, PreviewRestoreResponse__Output as _powercontext_memory_v1_PreviewRestoreResponse__Output } from '../../../powercontext/memory/v1/PreviewRestoreResponse';
import type { PutSourceRequest as _powercontext_memory_v1_PutSourceRequest, PutSourceRequest__Output as _powercontext_memory_v1_PutSourceRequest__Output } from '../../../powercontext/memory/v1/PutSourceRequest';
import type { PutSourceResponse as _powercontext_memory_v1_PutSourceResponse, PutSourceResponse__Output as _powercontext_memory_v1_PutSourceResponse__Output } from '../../../powercontext/memory/v1/PutSourceResponse';
import type { ReactivateRequest as _powercontext_memory_v1_ReactivateRequest, ReactivateRequest__Output as _powercontext_memory_v1_ReactivateRequest__Output } from '../../../powercontext/memory/v1/ReactivateRequest';
import type { ReactivateResponse as _powercontext_memory_v1_ReactivateResponse, ReactivateResponse__Output as _powercontext_memory_v1_ReactivateResponse__Output } from '../../../powercontext/memory/v1/ReactivateResponse';
import type { RememberRequest as _powercontext_memory_v1_RememberRequest, RememberRequest__Output as _powercontext_memory_v1_RememberRequest__Output } from '../../../powercontext/memory/v1/RememberRequest';
import type { RememberResponse as _powercontext_memory_v1_RememberResponse, RememberResponse__Output as _powercontext_memory_v1_RememberResponse__Output } from '../../../powercontext/memory/v1/RememberResponse';
import type { RestoreRequest as _powercontext_memory_v1_RestoreRequest, RestoreRequest__Output as _powercontext_memory_v1_RestoreRequest__Output } from '../../../powercontext/memory/v1/RestoreRequest';
import type { RestoreResponse as _powercontext_memory_v1_RestoreResponse, RestoreResponse__Output as _powercontext_memory_v1_RestoreResponse__Output } from '../../../powercontext/memory/v1/RestoreResponse';
import type { SearchRequest as _powercontext_memory_v1_SearchRequest, SearchRequest__Output as _powercontext_memory_v1_SearchRequest__Output } from '../../../powercontext/memory/v1/SearchRequest';
import type { SearchResponse as _powercontext_memory_v1_SearchResponse, SearchResponse__Output as _powercontext_memory_v1_SearchResponse__Output } from '../../../powercontext/memory/v1/SearchResponse';
import type { SetMemoryLabelRequest as _powercontext_memory_v1_SetMemoryLabelRequest, SetMemoryLabelRequest__Output as _powercontext_memory_v1_SetMemoryLabelRequest__Output } from '../../../powercontext/memory/v1/SetMemoryLabelRequest';
import type { SetMemoryLabelResponse as _powercontext_memory_v1_SetMemoryLabelResponse, SetMemoryLabelResponse__Output as _powercontext_memory_v1_SetMemoryLabelResponse__Output } from '../../../powercontext/memory/v1/SetMemoryLabelResponse';
import type { UndoMergeRequest as _powercontext_memory_v1_UndoMergeRequest, UndoMergeRequest__Output as _powercontext_memory_v1_UndoMergeRequest__Output } from '../../../powercontext/memory/v1/UndoMergeRequest';
import type { UndoMergeResponse as _powercontext_memory_v1_UndoMergeResponse, UndoMergeResponse__Output as _powercontext_memory_v1_UndoMergeResponse__Output } from '../../../powercontext/memory/v1/UndoMergeResponse';

/**
 * Versioned, auditable memory for coding agents.
 * 
 * Every write creates a new immutable revision by compare-and-swap on the memory's head:
 * a write based on a revision that is no longer the head fails with ABORTED and changes nothing.
 * Errors carry google.rpc.Status details (ErrorInfo with a stable reason, BadRequest naming the
 * field) in the grpc-status-details-bin trailer.
 */
export interface MemoryServiceClient extends grpc.Client {
  /**
   * Compact per-revision changes in ascending order; with follow, stays open for new revisions.
   */
  Changes(argument: _powercontext_memory_v1_ChangesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_powercontext_memory_v1_ChangesResponse__Output>;
  Changes(argument: _powercontext_memory_v1_ChangesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_powercontext_memory_v1_ChangesResponse__Output>;
  /**
   * Compact per-revision changes in ascending order; with follow, stays open for new revisions.
   */
  changes(argument: _powercontext_memory_v1_ChangesRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_powercontext_memory_v1_ChangesResponse__Output>;
  changes(argument: _powercontext_memory_v1_ChangesRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_powercontext_memory_v1_ChangesResponse__Output>;
  
  /**
   * Reads and verifies exact entry versions named by citations.
   */
  Expand(argument: _powercontext_memory_v1_ExpandRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  Expand(argument: _powercontext_memory_v1_ExpandRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  Expand(argument: _powercontext_memory_v1_ExpandRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  Expand(argument: _powercontext_memory_v1_ExpandRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Reads and verifies exact entry versions named by citations.
   */
  expand(argument: _powercontext_memory_v1_ExpandRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  expand(argument: _powercontext_memory_v1_ExpandRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  expand(argument: _powercontext_memory_v1_ExpandRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  expand(argument: _powercontext_memory_v1_ExpandRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ExpandResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Marks entries inactive in a new revision. Idempotent: all already inactive -> same revision.
   */
  Forget(argument: _powercontext_memory_v1_ForgetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  Forget(argument: _powercontext_memory_v1_ForgetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  Forget(argument: _powercontext_memory_v1_ForgetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  Forget(argument: _powercontext_memory_v1_ForgetRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Marks entries inactive in a new revision. Idempotent: all already inactive -> same revision.
   */
  forget(argument: _powercontext_memory_v1_ForgetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  forget(argument: _powercontext_memory_v1_ForgetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  forget(argument: _powercontext_memory_v1_ForgetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  forget(argument: _powercontext_memory_v1_ForgetRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ForgetResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * What this deployment can do.
   */
  GetCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  GetCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  GetCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  GetCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * What this deployment can do.
   */
  getCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  getCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  getCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  getCapabilities(argument: _powercontext_memory_v1_GetCapabilitiesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetCapabilitiesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Reads the head or an exact revision: ref, content, content hash and lineage.
   */
  GetMemory(argument: _powercontext_memory_v1_GetMemoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  GetMemory(argument: _powercontext_memory_v1_GetMemoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  GetMemory(argument: _powercontext_memory_v1_GetMemoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  GetMemory(argument: _powercontext_memory_v1_GetMemoryRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Reads the head or an exact revision: ref, content, content hash and lineage.
   */
  getMemory(argument: _powercontext_memory_v1_GetMemoryRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  getMemory(argument: _powercontext_memory_v1_GetMemoryRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  getMemory(argument: _powercontext_memory_v1_GetMemoryRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  getMemory(argument: _powercontext_memory_v1_GetMemoryRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetMemoryResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Metadata of the active entries (citation, kind, description, tags), never their text,
   * a page at a time by entry id. Choose what to read, then Expand the citations.
   */
  GetRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  GetRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  GetRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  GetRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Metadata of the active entries (citation, kind, description, tags), never their text,
   * a page at a time by entry id. Choose what to read, then Expand the citations.
   */
  getRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  getRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  getRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  getRecallManifest(argument: _powercontext_memory_v1_GetRecallManifestRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetRecallManifestResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match). A token
   * limited to listed memories reads only the sources those memories cite or had recorded for
   * them; any other source is NOT_FOUND (SOURCE_NOT_FOUND), exactly as one that does not exist.
   */
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match). A token
   * limited to listed memories reads only the sources those memories cite or had recorded for
   * them; any other source is NOT_FOUND (SOURCE_NOT_FOUND), exactly as one that does not exist.
   */
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Entries filtered by status, kind and tags, a page at a time by entry id; text on request.
   */
  ListEntries(argument: _powercontext_memory_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _powercontext_memory_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _powercontext_memory_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  ListEntries(argument: _powercontext_memory_v1_ListEntriesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Entries filtered by status, kind and tags, a page at a time by entry id; text on request.
   */
  listEntries(argument: _powercontext_memory_v1_ListEntriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _powercontext_memory_v1_ListEntriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _powercontext_memory_v1_ListEntriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  listEntries(argument: _powercontext_memory_v1_ListEntriesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ListEntriesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * The memories the caller may see (a token limited to listed memories sees only those), a
   * page at a time by artifact id, each with its head, entry counts, newest change and label.
   */
  ListMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  ListMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  ListMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  ListMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  /**
   * The memories the caller may see (a token limited to listed memories sees only those), a
   * page at a time by artifact id, each with its head, entry counts, newest change and label.
   */
  listMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  listMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  listMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  listMemories(argument: _powercontext_memory_v1_ListMemoriesRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ListMemoriesResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Folds two or more active entries into one new entry in one revision; the inputs become
   * merged (inactive, pointing at the result) and their citations stay resolvable.
   */
  Merge(argument: _powercontext_memory_v1_MergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  Merge(argument: _powercontext_memory_v1_MergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  Merge(argument: _powercontext_memory_v1_MergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  Merge(argument: _powercontext_memory_v1_MergeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Folds two or more active entries into one new entry in one revision; the inputs become
   * merged (inactive, pointing at the result) and their citations stay resolvable.
   */
  merge(argument: _powercontext_memory_v1_MergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  merge(argument: _powercontext_memory_v1_MergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  merge(argument: _powercontext_memory_v1_MergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  merge(argument: _powercontext_memory_v1_MergeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_MergeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Exact dedupe (keep the smallest entry_id) then evidence normalization.
   */
  Organize(argument: _powercontext_memory_v1_OrganizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  Organize(argument: _powercontext_memory_v1_OrganizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  Organize(argument: _powercontext_memory_v1_OrganizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  Organize(argument: _powercontext_memory_v1_OrganizeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Exact dedupe (keep the smallest entry_id) then evidence normalization.
   */
  organize(argument: _powercontext_memory_v1_OrganizeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  organize(argument: _powercontext_memory_v1_OrganizeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  organize(argument: _powercontext_memory_v1_OrganizeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  organize(argument: _powercontext_memory_v1_OrganizeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_OrganizeResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * A deterministic, budgeted block of active entries for an agent's next task: constraints and
   * preferences, then entries relevant to the query, then the newest working note, each cited.
   */
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A deterministic, budgeted block of active entries for an agent's next task: constraints and
   * preferences, then entries relevant to the query, then the newest working note, each cited.
   */
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * What a Restore or UndoMerge would do, with a signed token that applies exactly that while
   * nothing relevant has changed. Writes nothing and holds no lock.
   */
  PreviewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  PreviewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  PreviewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  PreviewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  /**
   * What a Restore or UndoMerge would do, with a signed token that applies exactly that while
   * nothing relevant has changed. Writes nothing and holds no lock.
   */
  previewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  previewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  previewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  previewRestore(argument: _powercontext_memory_v1_PreviewRestoreRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PreviewRestoreResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
   * Optionally records it for a memory (a token limited to listed memories must name one).
   */
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
   * Optionally records it for a memory (a token limited to listed memories must name one).
   */
  putSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  putSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  putSource(argument: _powercontext_memory_v1_PutSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  putSource(argument: _powercontext_memory_v1_PutSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Makes inactive entries active again with the same version. Idempotent.
   */
  Reactivate(argument: _powercontext_memory_v1_ReactivateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  Reactivate(argument: _powercontext_memory_v1_ReactivateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  Reactivate(argument: _powercontext_memory_v1_ReactivateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  Reactivate(argument: _powercontext_memory_v1_ReactivateRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Makes inactive entries active again with the same version. Idempotent.
   */
  reactivate(argument: _powercontext_memory_v1_ReactivateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  reactivate(argument: _powercontext_memory_v1_ReactivateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  reactivate(argument: _powercontext_memory_v1_ReactivateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  reactivate(argument: _powercontext_memory_v1_ReactivateRequest, callback: grpc.requestCallback<_powercontext_memory_v1_ReactivateResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Adds or revises entries. Without `memory` it creates a new Memory (only if there is content).
   */
  Remember(argument: _powercontext_memory_v1_RememberRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  Remember(argument: _powercontext_memory_v1_RememberRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  Remember(argument: _powercontext_memory_v1_RememberRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  Remember(argument: _powercontext_memory_v1_RememberRequest, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Adds or revises entries. Without `memory` it creates a new Memory (only if there is content).
   */
  remember(argument: _powercontext_memory_v1_RememberRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  remember(argument: _powercontext_memory_v1_RememberRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  remember(argument: _powercontext_memory_v1_RememberRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  remember(argument: _powercontext_memory_v1_RememberRequest, callback: grpc.requestCallback<_powercontext_memory_v1_RememberResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Brings an entry back: a forgotten entry is reactivated, a merged one by undoing the merges
   * that froze it; optionally as a chosen historical version.
   */
  Restore(argument: _powercontext_memory_v1_RestoreRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  Restore(argument: _powercontext_memory_v1_RestoreRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  Restore(argument: _powercontext_memory_v1_RestoreRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  Restore(argument: _powercontext_memory_v1_RestoreRequest, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Brings an entry back: a forgotten entry is reactivated, a merged one by undoing the merges
   * that froze it; optionally as a chosen historical version.
   */
  restore(argument: _powercontext_memory_v1_RestoreRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  restore(argument: _powercontext_memory_v1_RestoreRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  restore(argument: _powercontext_memory_v1_RestoreRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  restore(argument: _powercontext_memory_v1_RestoreRequest, callback: grpc.requestCallback<_powercontext_memory_v1_RestoreResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Searches the active entries of the given memories at their heads (revision 0: the head now).
   */
  Search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Searches the active entries of the given memories at their heads (revision 0: the head now).
   */
  search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Sets (or clears) a memory's label: a short human description shown in listings. Labels
   * are kept as a history of versions; a set names the version it replaces (compare-and-swap,
   * ABORTED when stale). Not part of any revision: entries and their hashes are unaffected.
   */
  SetMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  SetMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  SetMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  SetMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Sets (or clears) a memory's label: a short human description shown in listings. Labels
   * are kept as a history of versions; a set names the version it replaces (compare-and-swap,
   * ABORTED when stale). Not part of any revision: entries and their hashes are unaffected.
   */
  setMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  setMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  setMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  setMemoryLabel(argument: _powercontext_memory_v1_SetMemoryLabelRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SetMemoryLabelResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Undoes the merge that produced an entry (and the later merges that froze that entry).
   */
  UndoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  UndoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  UndoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  UndoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Undoes the merge that produced an entry (and the later merges that froze that entry).
   */
  undoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  undoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  undoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  undoMerge(argument: _powercontext_memory_v1_UndoMergeRequest, callback: grpc.requestCallback<_powercontext_memory_v1_UndoMergeResponse__Output>): grpc.ClientUnaryCall;
  
}

/**
 * Versioned, auditable memory for coding agents.
 * 
 * Every write creates a new immutable revision by compare-and-swap on the memory's head:
 * a write based on a revision that is no longer the head fails with ABORTED and changes nothing.
 * Errors carry google.rpc.Status details (ErrorInfo with a stable reason, BadRequest naming the
 * field) in the grpc-status-details-bin trailer.
 */
export interface MemoryServiceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Compact per-revision changes in ascending order; with follow, stays open for new revisions.
   */
  Changes: grpc.handleServerStreamingCall<_powercontext_memory_v1_ChangesRequest__Output, _powercontext_memory_v1_ChangesResponse>;
  
  /**
   * Reads and verifies exact entry versions named by citations.
   */
  Expand: grpc.handleUnaryCall<_powercontext_memory_v1_ExpandRequest__Output, _powercontext_memory_v1_ExpandResponse>;
  
  /**
   * Marks entries inactive in a new revision. Idempotent: all already inactive -> same revision.
   */
  Forget: grpc.handleUnaryCall<_powercontext_memory_v1_ForgetRequest__Output, _powercontext_memory_v1_ForgetResponse>;
  
  /**
   * What this deployment can do.
   */
  GetCapabilities: grpc.handleUnaryCall<_powercontext_memory_v1_GetCapabilitiesRequest__Output, _powercontext_memory_v1_GetCapabilitiesResponse>;
  
  /**
   * Reads the head or an exact revision: ref, content, content hash and lineage.
   */
  GetMemory: grpc.handleUnaryCall<_powercontext_memory_v1_GetMemoryRequest__Output, _powercontext_memory_v1_GetMemoryResponse>;
  
  /**
   * Metadata of the active entries (citation, kind, description, tags), never their text,
   * a page at a time by entry id. Choose what to read, then Expand the citations.
   */
  GetRecallManifest: grpc.handleUnaryCall<_powercontext_memory_v1_GetRecallManifestRequest__Output, _powercontext_memory_v1_GetRecallManifestResponse>;
  
  /**
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match). A token
   * limited to listed memories reads only the sources those memories cite or had recorded for
   * them; any other source is NOT_FOUND (SOURCE_NOT_FOUND), exactly as one that does not exist.
   */
  GetSource: grpc.handleUnaryCall<_powercontext_memory_v1_GetSourceRequest__Output, _powercontext_memory_v1_GetSourceResponse>;
  
  /**
   * Entries filtered by status, kind and tags, a page at a time by entry id; text on request.
   */
  ListEntries: grpc.handleUnaryCall<_powercontext_memory_v1_ListEntriesRequest__Output, _powercontext_memory_v1_ListEntriesResponse>;
  
  /**
   * The memories the caller may see (a token limited to listed memories sees only those), a
   * page at a time by artifact id, each with its head, entry counts, newest change and label.
   */
  ListMemories: grpc.handleUnaryCall<_powercontext_memory_v1_ListMemoriesRequest__Output, _powercontext_memory_v1_ListMemoriesResponse>;
  
  /**
   * Folds two or more active entries into one new entry in one revision; the inputs become
   * merged (inactive, pointing at the result) and their citations stay resolvable.
   */
  Merge: grpc.handleUnaryCall<_powercontext_memory_v1_MergeRequest__Output, _powercontext_memory_v1_MergeResponse>;
  
  /**
   * Exact dedupe (keep the smallest entry_id) then evidence normalization.
   */
  Organize: grpc.handleUnaryCall<_powercontext_memory_v1_OrganizeRequest__Output, _powercontext_memory_v1_OrganizeResponse>;
  
  /**
   * A deterministic, budgeted block of active entries for an agent's next task: constraints and
   * preferences, then entries relevant to the query, then the newest working note, each cited.
   */
  PrepareContext: grpc.handleUnaryCall<_powercontext_memory_v1_PrepareContextRequest__Output, _powercontext_memory_v1_PrepareContextResponse>;
  
  /**
   * What a Restore or UndoMerge would do, with a signed token that applies exactly that while
   * nothing relevant has changed. Writes nothing and holds no lock.
   */
  PreviewRestore: grpc.handleUnaryCall<_powercontext_memory_v1_PreviewRestoreRequest__Output, _powercontext_memory_v1_PreviewRestoreResponse>;
  
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
   * Optionally records it for a memory (a token limited to listed memories must name one).
   */
  PutSource: grpc.handleUnaryCall<_powercontext_memory_v1_PutSourceRequest__Output, _powercontext_memory_v1_PutSourceResponse>;
  
  /**
   * Makes inactive entries active again with the same version. Idempotent.
   */
  Reactivate: grpc.handleUnaryCall<_powercontext_memory_v1_ReactivateRequest__Output, _powercontext_memory_v1_ReactivateResponse>;
  
  /**
   * Adds or revises entries. Without `memory` it creates a new Memory (only if there is content).
   */
  Remember: grpc.handleUnaryCall<_powercontext_memory_v1_RememberRequest__Output, _powercontext_memory_v1_RememberResponse>;
  
  /**
   * Brings an entry back: a forgotten entry is reactivated, a merged one by undoing the merges
   * that froze it; optionally as a chosen historical version.
   */
  Restore: grpc.handleUnaryCall<_powercontext_memory_v1_RestoreRequest__Output, _powercontext_memory_v1_RestoreResponse>;
  
  /**
   * Searches the active entries of the given memories at their heads (revision 0: the head now).
   */
  Search: grpc.handleUnaryCall<_powercontext_memory_v1_SearchRequest__Output, _powercontext_memory_v1_SearchResponse>;
  
  /**
   * Sets (or clears) a memory's label: a short human description shown in listings. Labels
   * are kept as a history of versions; a set names the version it replaces (compare-and-swap,
   * ABORTED when stale). Not part of any revision: entries and their hashes are unaffected.
   */
  SetMemoryLabel: grpc.handleUnaryCall<_powercontext_memory_v1_SetMemoryLabelRequest__Output, _powercontext_memory_v1_SetMemoryLabelResponse>;
  
  /**
   * Undoes the merge that produced an entry (and the later merges that froze that entry).
   */
  UndoMerge: grpc.handleUnaryCall<_powercontext_memory_v1_UndoMergeRequest__Output, _powercontext_memory_v1_UndoMergeResponse>;
  
}

export interface MemoryServiceDefinition extends grpc.ServiceDefinition {
  Changes: MethodDefinition<_powercontext_memory_v1_ChangesRequest, _powercontext_memory_v1_ChangesResponse, _powercontext_memory_v1_ChangesRequest__Output, _powercontext_memory_v1_ChangesResponse__Output>
  Expand: MethodDefinition<_powercontext_memory_v1_ExpandRequest, _powercontext_memory_v1_ExpandResponse, _powercontext_memory_v1_ExpandRequest__Output, _powercontext_memory_v1_ExpandResponse__Output>
  Forget: MethodDefinition<_powercontext_memory_v1_ForgetRequest, _powercontext_memory_v1_ForgetResponse, _powercontext_memory_v1_ForgetRequest__Output, _powercontext_memory_v1_ForgetResponse__Output>
  GetCapabilities: MethodDefinition<_powercontext_memory_v1_GetCapabilitiesRequest, _powercontext_memory_v1_GetCapabilitiesResponse, _powercontext_memory_v1_GetCapabilitiesRequest__Output, _powercontext_memory_v1_GetCapabilitiesResponse__Output>
  GetMemory: MethodDefinition<_powercontext_memory_v1_GetMemoryRequest, _powercontext_memory_v1_GetMemoryResponse, _powercontext_memory_v1_GetMemoryRequest__Output, _powercontext_memory_v1_GetMemoryResponse__Output>
  GetRecallManifest: MethodDefinition<_powercontext_memory_v1_GetRecallManifestRequest, _powercontext_memory_v1_GetRecallManifestResponse, _powercontext_memory_v1_GetRecallManifestRequest__Output, _powercontext_memory_v1_GetRecallManifestResponse__Output>
  GetSource: MethodDefinition<_powercontext_memory_v1_GetSourceRequest, _powercontext_memory_v1_GetSourceResponse, _powercontext_memory_v1_GetSourceRequest__Output, _powercontext_memory_v1_GetSourceResponse__Output>
  ListEntries: MethodDefinition<_powercontext_memory_v1_ListEntriesRequest, _powercontext_memory_v1_ListEntriesResponse, _powercontext_memory_v1_ListEntriesRequest__Output, _powercontext_memory_v1_ListEntriesResponse__Output>
  ListMemories: MethodDefinition<_powercontext_memory_v1_ListMemoriesRequest, _powercontext_memory_v1_ListMemoriesResponse, _powercontext_memory_v1_ListMemoriesRequest__Output, _powercontext_memory_v1_ListMemoriesResponse__Output>
  Merge: MethodDefinition<_powercontext_memory_v1_MergeRequest, _powercontext_memory_v1_MergeResponse, _powercontext_memory_v1_MergeRequest__Output, _powercontext_memory_v1_MergeResponse__Output>
  Organize: MethodDefinition<_powercontext_memory_v1_OrganizeRequest, _powercontext_memory_v1_OrganizeResponse, _powercontext_memory_v1_OrganizeRequest__Output, _powercontext_memory_v1_OrganizeResponse__Output>
  PrepareContext: MethodDefinition<_powercontext_memory_v1_PrepareContextRequest, _powercontext_memory_v1_PrepareContextResponse, _powercontext_memory_v1_PrepareContextRequest__Output, _powercontext_memory_v1_PrepareContextResponse__Output>
  PreviewRestore: MethodDefinition<_powercontext_memory_v1_PreviewRestoreRequest, _powercontext_memory_v1_PreviewRestoreResponse, _powercontext_memory_v1_PreviewRestoreRequest__Output, _powercontext_memory_v1_PreviewRestoreResponse__Output>
  PutSource: MethodDefinition<_powercontext_memory_v1_PutSourceRequest, _powercontext_memory_v1_PutSourceResponse, _powercontext_memory_v1_PutSourceRequest__Output, _powercontext_memory_v1_PutSourceResponse__Output>
  Reactivate: MethodDefinition<_powercontext_memory_v1_ReactivateRequest, _powercontext_memory_v1_ReactivateResponse, _powercontext_memory_v1_ReactivateRequest__Output, _powercontext_memory_v1_ReactivateResponse__Output>
  Remember: MethodDefinition<_powercontext_memory_v1_RememberRequest, _powercontext_memory_v1_RememberResponse, _powercontext_memory_v1_RememberRequest__Output, _powercontext_memory_v1_RememberResponse__Output>
  Restore: MethodDefinition<_powercontext_memory_v1_RestoreRequest, _powercontext_memory_v1_RestoreResponse, _powercontext_memory_v1_RestoreRequest__Output, _powercontext_memory_v1_RestoreResponse__Output>
  Search: MethodDefinition<_powercontext_memory_v1_SearchRequest, _powercontext_memory_v1_SearchResponse, _powercontext_memory_v1_SearchRequest__Output, _powercontext_memory_v1_SearchResponse__Output>
  SetMemoryLabel: MethodDefinition<_powercontext_memory_v1_SetMemoryLabelRequest, _powercontext_memory_v1_SetMemoryLabelResponse, _powercontext_memory_v1_SetMemoryLabelRequest__Output, _powercontext_memory_v1_SetMemoryLabelResponse__Output>
  UndoMerge: MethodDefinition<_powercontext_memory_v1_UndoMergeRequest, _powercontext_memory_v1_UndoMergeResponse, _powercontext_memory_v1_UndoMergeRequest__Output, _powercontext_memory_v1_UndoMergeResponse__Output>
}
