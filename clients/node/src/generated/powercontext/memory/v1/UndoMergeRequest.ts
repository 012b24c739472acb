// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface UndoMergeRequest {
  /**
   * As in RestoreRequest.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * A merge result.
   */
  'entryId'?: (string);
  'previewToken'?: (string);
  'reason'?: (string);
  '_reason'?: "reason";
}

export interface UndoMergeRequest__Output {
  /**
   * As in RestoreRequest.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * A merge result.
   */
  'entryId': (string);
  'previewToken': (string);
  'reason'?: (string);
  '_reason'?: "reason";
}
