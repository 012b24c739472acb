// Original file: powercontext/memory/v1/memory_service.proto

import type { MemorySummary as _powercontext_memory_v1_MemorySummary, MemorySummary__Output as _powercontext_memory_v1_MemorySummary__Output } from '../../../powercontext/memory/v1/MemorySummary';

export interface ListMemoriesResponse {
  /**
   * In artifact id order.
   */
  'memories'?: (_powercontext_memory_v1_MemorySummary)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken'?: (string);
}

export interface ListMemoriesResponse__Output {
  /**
   * In artifact id order.
   */
  'memories': (_powercontext_memory_v1_MemorySummary__Output)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken': (string);
}
