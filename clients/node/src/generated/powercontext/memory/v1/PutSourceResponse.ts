// Original file: powercontext/memory/v1/memory_service.proto

import type { Source as _powercontext_memory_v1_Source, Source__Output as _powercontext_memory_v1_Source__Output } from '../../../powercontext/memory/v1/Source';

export interface PutSourceResponse {
  'source'?: (_powercontext_memory_v1_Source | null);
  /**
   * False when an identical Source already existed.
   */
  'created'?: (boolean);
}

export interface PutSourceResponse__Output {
  'source': (_powercontext_memory_v1_Source__Output | null);
  /**
   * False when an identical Source already existed.
   */
  'created': (boolean);
}
