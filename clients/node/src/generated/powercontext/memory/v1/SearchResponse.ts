// Original file: powercontext/memory/v1/memory_service.proto

import type { Hit as _powercontext_memory_v1_Hit, Hit__Output as _powercontext_memory_v1_Hit__Output } from '../../../powercontext/memory/v1/Hit';
import type { SearchMode as _powercontext_memory_v1_SearchMode, SearchMode__Output as _powercontext_memory_v1_SearchMode__Output } from '../../../powercontext/memory/v1/SearchMode';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface SearchResponse {
  'hits'?: (_powercontext_memory_v1_Hit)[];
  /**
   * The mode that actually ran (FTS, VECTOR or HYBRID).
   */
  'mode'?: (_powercontext_memory_v1_SearchMode);
  /**
   * Why AUTO did not run hybrid, when it did not.
   */
  'fallbackReason'?: (string);
  /**
   * The head revision searched of each requested memory, in request order (duplicates removed).
   */
  'memories'?: (_powercontext_memory_v1_ArtifactRef)[];
}

export interface SearchResponse__Output {
  'hits': (_powercontext_memory_v1_Hit__Output)[];
  /**
   * The mode that actually ran (FTS, VECTOR or HYBRID).
   */
  'mode': (_powercontext_memory_v1_SearchMode__Output);
  /**
   * Why AUTO did not run hybrid, when it did not.
   */
  'fallbackReason': (string);
  /**
   * The head revision searched of each requested memory, in request order (duplicates removed).
   */
  'memories': (_powercontext_memory_v1_ArtifactRef__Output)[];
}
