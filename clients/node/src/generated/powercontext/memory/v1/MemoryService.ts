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
import type { GetSourceRequest as _powercontext_memory_v1_GetSourceRequest, GetSourceRequest__Output as _powercontext_memory_v1_GetSourceRequest__Output } from '../../../powercontext/memory/v1/GetSourceRequest';
import type { GetSourceResponse as _powercontext_memory_v1_GetSourceResponse, GetSourceResponse__Output as _powercontext_memory_v1_GetSourceResponse__Output } from '../../../powercontext/memory/v1/GetSourceResponse';
import type { OrganizeRequest as _powercontext_memory_v1_OrganizeRequest, OrganizeRequest__Output as _powercontext_memory_v1_OrganizeRequest__Output } from '../../../powercontext/memory/v1/OrganizeRequest';
import type { OrganizeResponse as _powercontext_memory_v1_OrganizeResponse, OrganizeResponse__Output as _powercontext_memory_v1_OrganizeResponse__Output } from '../../../powercontext/memory/v1/OrganizeResponse';
import type { PrepareContextRequest as _powercontext_memory_v1_PrepareContextRequest, PrepareContextRequest__Output as _powercontext_memory_v1_PrepareContextRequest__Output } from '../../../powercontext/memory/v1/PrepareContextRequest';
import type { PrepareContextResponse as _powercontext_memory_v1_PrepareContextResponse, PrepareContextResponse__Output as _powercontext_memory_v1_PrepareContextResponse__Output } from '../../../powercontext/memory/v1/PrepareContextResponse';
import type { PutSourceRequest as _powercontext_memory_v1_PutSourceRequest, PutSourceRequest__Output as _powercontext_memory_v1_PutSourceRequest__Output } from '../../../powercontext/memory/v1/PutSourceRequest';
import type { PutSourceResponse as _powercontext_memory_v1_PutSourceResponse, PutSourceResponse__Output as _powercontext_memory_v1_PutSourceResponse__Output } from '../../../powercontext/memory/v1/PutSourceResponse';
import type { ReactivateRequest as _powercontext_memory_v1_ReactivateRequest, ReactivateRequest__Output as _powercontext_memory_v1_ReactivateRequest__Output } from '../../../powercontext/memory/v1/ReactivateRequest';
import type { ReactivateResponse as _powercontext_memory_v1_ReactivateResponse, ReactivateResponse__Output as _powercontext_memory_v1_ReactivateResponse__Output } from '../../../powercontext/memory/v1/ReactivateResponse';
import type { RememberRequest as _powercontext_memory_v1_RememberRequest, RememberRequest__Output as _powercontext_memory_v1_RememberRequest__Output } from '../../../powercontext/memory/v1/RememberRequest';
import type { RememberResponse as _powercontext_memory_v1_RememberResponse, RememberResponse__Output as _powercontext_memory_v1_RememberResponse__Output } from '../../../powercontext/memory/v1/RememberResponse';
import type { SearchRequest as _powercontext_memory_v1_SearchRequest, SearchRequest__Output as _powercontext_memory_v1_SearchRequest__Output } from '../../../powercontext/memory/v1/SearchRequest';
import type { SearchResponse as _powercontext_memory_v1_SearchResponse, SearchResponse__Output as _powercontext_memory_v1_SearchResponse__Output } from '../../../powercontext/memory/v1/SearchResponse';

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
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match).
   */
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  GetSource(argument: _powercontext_memory_v1_GetSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match).
   */
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  getSource(argument: _powercontext_memory_v1_GetSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_GetSourceResponse__Output>): grpc.ClientUnaryCall;
  
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
   * preferences, then entries relevant to the query, then recent working notes, each cited.
   */
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  PrepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  /**
   * A deterministic, budgeted block of active entries for an agent's next task: constraints and
   * preferences, then entries relevant to the query, then recent working notes, each cited.
   */
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  prepareContext(argument: _powercontext_memory_v1_PrepareContextRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PrepareContextResponse__Output>): grpc.ClientUnaryCall;
  
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
   */
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  PutSource(argument: _powercontext_memory_v1_PutSourceRequest, callback: grpc.requestCallback<_powercontext_memory_v1_PutSourceResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
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
   * Searches the active entries of the given head revisions.
   */
  Search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  Search(argument: _powercontext_memory_v1_SearchRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  /**
   * Searches the active entries of the given head revisions.
   */
  search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  search(argument: _powercontext_memory_v1_SearchRequest, callback: grpc.requestCallback<_powercontext_memory_v1_SearchResponse__Output>): grpc.ClientUnaryCall;
  
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
   * Reads a Source, verifying its hash (DATA_LOSS when the stored bytes do not match).
   */
  GetSource: grpc.handleUnaryCall<_powercontext_memory_v1_GetSourceRequest__Output, _powercontext_memory_v1_GetSourceResponse>;
  
  /**
   * Exact dedupe (keep the smallest entry_id) then evidence normalization.
   */
  Organize: grpc.handleUnaryCall<_powercontext_memory_v1_OrganizeRequest__Output, _powercontext_memory_v1_OrganizeResponse>;
  
  /**
   * A deterministic, budgeted block of active entries for an agent's next task: constraints and
   * preferences, then entries relevant to the query, then recent working notes, each cited.
   */
  PrepareContext: grpc.handleUnaryCall<_powercontext_memory_v1_PrepareContextRequest__Output, _powercontext_memory_v1_PrepareContextResponse>;
  
  /**
   * Persists an immutable Source; the same record always returns the same source_id.
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
   * Searches the active entries of the given head revisions.
   */
  Search: grpc.handleUnaryCall<_powercontext_memory_v1_SearchRequest__Output, _powercontext_memory_v1_SearchResponse>;
  
}

export interface MemoryServiceDefinition extends grpc.ServiceDefinition {
  Changes: MethodDefinition<_powercontext_memory_v1_ChangesRequest, _powercontext_memory_v1_ChangesResponse, _powercontext_memory_v1_ChangesRequest__Output, _powercontext_memory_v1_ChangesResponse__Output>
  Expand: MethodDefinition<_powercontext_memory_v1_ExpandRequest, _powercontext_memory_v1_ExpandResponse, _powercontext_memory_v1_ExpandRequest__Output, _powercontext_memory_v1_ExpandResponse__Output>
  Forget: MethodDefinition<_powercontext_memory_v1_ForgetRequest, _powercontext_memory_v1_ForgetResponse, _powercontext_memory_v1_ForgetRequest__Output, _powercontext_memory_v1_ForgetResponse__Output>
  GetCapabilities: MethodDefinition<_powercontext_memory_v1_GetCapabilitiesRequest, _powercontext_memory_v1_GetCapabilitiesResponse, _powercontext_memory_v1_GetCapabilitiesRequest__Output, _powercontext_memory_v1_GetCapabilitiesResponse__Output>
  GetMemory: MethodDefinition<_powercontext_memory_v1_GetMemoryRequest, _powercontext_memory_v1_GetMemoryResponse, _powercontext_memory_v1_GetMemoryRequest__Output, _powercontext_memory_v1_GetMemoryResponse__Output>
  GetSource: MethodDefinition<_powercontext_memory_v1_GetSourceRequest, _powercontext_memory_v1_GetSourceResponse, _powercontext_memory_v1_GetSourceRequest__Output, _powercontext_memory_v1_GetSourceResponse__Output>
  Organize: MethodDefinition<_powercontext_memory_v1_OrganizeRequest, _powercontext_memory_v1_OrganizeResponse, _powercontext_memory_v1_OrganizeRequest__Output, _powercontext_memory_v1_OrganizeResponse__Output>
  PrepareContext: MethodDefinition<_powercontext_memory_v1_PrepareContextRequest, _powercontext_memory_v1_PrepareContextResponse, _powercontext_memory_v1_PrepareContextRequest__Output, _powercontext_memory_v1_PrepareContextResponse__Output>
  PutSource: MethodDefinition<_powercontext_memory_v1_PutSourceRequest, _powercontext_memory_v1_PutSourceResponse, _powercontext_memory_v1_PutSourceRequest__Output, _powercontext_memory_v1_PutSourceResponse__Output>
  Reactivate: MethodDefinition<_powercontext_memory_v1_ReactivateRequest, _powercontext_memory_v1_ReactivateResponse, _powercontext_memory_v1_ReactivateRequest__Output, _powercontext_memory_v1_ReactivateResponse__Output>
  Remember: MethodDefinition<_powercontext_memory_v1_RememberRequest, _powercontext_memory_v1_RememberResponse, _powercontext_memory_v1_RememberRequest__Output, _powercontext_memory_v1_RememberResponse__Output>
  Search: MethodDefinition<_powercontext_memory_v1_SearchRequest, _powercontext_memory_v1_SearchResponse, _powercontext_memory_v1_SearchRequest__Output, _powercontext_memory_v1_SearchResponse__Output>
}
