// Original file: powercontext/memory/v1/memory_service.proto

import type { ExpandedEntry as _powercontext_memory_v1_ExpandedEntry, ExpandedEntry__Output as _powercontext_memory_v1_ExpandedEntry__Output } from '../../../powercontext/memory/v1/ExpandedEntry';

export interface ExpandResponse {
  /**
   * One per citation, same order.
   */
  'entries'?: (_powercontext_memory_v1_ExpandedEntry)[];
}

export interface ExpandResponse__Output {
  /**
   * One per citation, same order.
   */
  'entries': (_powercontext_memory_v1_ExpandedEntry__Output)[];
}
