// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { SearchMode as _powercontext_memory_v1_SearchMode, SearchMode__Output as _powercontext_memory_v1_SearchMode__Output } from '../../../powercontext/memory/v1/SearchMode';

export interface SearchRequest {
  /**
   * Non-empty; at most 1,000 characters.
   */
  'query'?: (string);
  /**
   * Head revisions to search (at least one; duplicates removed). A non-head revision is refused.
   */
  'memories'?: (_powercontext_memory_v1_ArtifactRef)[];
  /**
   * 1..100; 0 means 8.
   */
  'limit'?: (number);
  'mode'?: (_powercontext_memory_v1_SearchMode);
}

export interface SearchRequest__Output {
  /**
   * Non-empty; at most 1,000 characters.
   */
  'query': (string);
  /**
   * Head revisions to search (at least one; duplicates removed). A non-head revision is refused.
   */
  'memories': (_powercontext_memory_v1_ArtifactRef__Output)[];
  /**
   * 1..100; 0 means 8.
   */
  'limit': (number);
  'mode': (_powercontext_memory_v1_SearchMode__Output);
}
