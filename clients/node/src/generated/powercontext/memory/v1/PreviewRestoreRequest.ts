// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { RestoreOperation as _powercontext_memory_v1_RestoreOperation, RestoreOperation__Output as _powercontext_memory_v1_RestoreOperation__Output } from '../../../powercontext/memory/v1/RestoreOperation';

export interface PreviewRestoreRequest {
  /**
   * revision 0: the current head.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'operation'?: (_powercontext_memory_v1_RestoreOperation);
  'entryId'?: (string);
  /**
   * RESTORE only, as in RestoreRequest.
   */
  'entryVersionId'?: (string);
}

export interface PreviewRestoreRequest__Output {
  /**
   * revision 0: the current head.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'operation': (_powercontext_memory_v1_RestoreOperation__Output);
  'entryId': (string);
  /**
   * RESTORE only, as in RestoreRequest.
   */
  'entryVersionId': (string);
}
