// Original file: powercontext/memory/v1/memory_service.proto

import type { Citation as _powercontext_memory_v1_Citation, Citation__Output as _powercontext_memory_v1_Citation__Output } from '../../../powercontext/memory/v1/Citation';

export interface ExpandRequest {
  /**
   * 1..100 citations.
   */
  'citations'?: (_powercontext_memory_v1_Citation)[];
}

export interface ExpandRequest__Output {
  /**
   * 1..100 citations.
   */
  'citations': (_powercontext_memory_v1_Citation__Output)[];
}
