// Original file: powercontext/memory/v1/memory_service.proto

import type { Source as _powercontext_memory_v1_Source, Source__Output as _powercontext_memory_v1_Source__Output } from '../../../powercontext/memory/v1/Source';

export interface GetSourceResponse {
  'source'?: (_powercontext_memory_v1_Source | null);
}

export interface GetSourceResponse__Output {
  'source': (_powercontext_memory_v1_Source__Output | null);
}
