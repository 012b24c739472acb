// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { ListedEntry as _powercontext_memory_v1_ListedEntry, ListedEntry__Output as _powercontext_memory_v1_ListedEntry__Output } from '../../../powercontext/memory/v1/ListedEntry';
import type { RecallManifestCode as _powercontext_memory_v1_RecallManifestCode, RecallManifestCode__Output as _powercontext_memory_v1_RecallManifestCode__Output } from '../../../powercontext/memory/v1/RecallManifestCode';

export interface GetRecallManifestResponse {
  /**
   * The revision read.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Active entries in entry id order, without text.
   */
  'items'?: (_powercontext_memory_v1_ListedEntry)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken'?: (string);
  'code'?: (_powercontext_memory_v1_RecallManifestCode);
}

export interface GetRecallManifestResponse__Output {
  /**
   * The revision read.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Active entries in entry id order, without text.
   */
  'items': (_powercontext_memory_v1_ListedEntry__Output)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken': (string);
  'code': (_powercontext_memory_v1_RecallManifestCode__Output);
}
