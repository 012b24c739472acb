// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface GetMemoryRequest {
  /**
   * revision 0 reads the current head.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Leave content's manifest and changes out (content_omitted is then true).
   */
  'metadataOnly'?: (boolean);
}

export interface GetMemoryRequest__Output {
  /**
   * revision 0 reads the current head.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Leave content's manifest and changes out (content_omitted is then true).
   */
  'metadataOnly': (boolean);
}
