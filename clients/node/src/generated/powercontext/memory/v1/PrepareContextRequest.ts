// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface PrepareContextRequest {
  /**
   * Memories to draw from; revision 0 means the current head (the response names the heads
   * used). At least one, at most 32.
   */
  'memories'?: (_powercontext_memory_v1_ArtifactRef)[];
  /**
   * Optional: the user's prompt; selects the RELEVANT section (full-text / hybrid search).
   */
  'query'?: (string);
  /**
   * The exact UTF-8 byte budget of `block`, 256..65536; 0 means 8192.
   */
  'budgetBytes'?: (number);
}

export interface PrepareContextRequest__Output {
  /**
   * Memories to draw from; revision 0 means the current head (the response names the heads
   * used). At least one, at most 32.
   */
  'memories': (_powercontext_memory_v1_ArtifactRef__Output)[];
  /**
   * Optional: the user's prompt; selects the RELEVANT section (full-text / hybrid search).
   */
  'query': (string);
  /**
   * The exact UTF-8 byte budget of `block`, 256..65536; 0 means 8192.
   */
  'budgetBytes': (number);
}
