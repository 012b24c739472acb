// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { SearchMode as _powercontext_memory_v1_SearchMode, SearchMode__Output as _powercontext_memory_v1_SearchMode__Output } from '../../../powercontext/memory/v1/SearchMode';
import type { TagMatch as _powercontext_memory_v1_TagMatch, TagMatch__Output as _powercontext_memory_v1_TagMatch__Output } from '../../../powercontext/memory/v1/TagMatch';

export interface SearchRequest {
  /**
   * Non-empty; at most 1,000 characters.
   */
  'query'?: (string);
  /**
   * Memories to search (at least one; duplicates removed), each at its head: revision 0 means
   * whatever the head is now (the response names it); any other revision must be the head.
   */
  'memories'?: (_powercontext_memory_v1_ArtifactRef)[];
  /**
   * 1..100; 0 means 8.
   */
  'limit'?: (number);
  'mode'?: (_powercontext_memory_v1_SearchMode);
  /**
   * Only entries of these kinds (empty: any kind). Applied inside each channel's candidate
   * query, before the limit.
   */
  'kinds'?: (string)[];
  /**
   * Only entries carrying these tags (empty: no tag filter), combined by tag_match.
   */
  'tags'?: (string)[];
  'tagMatch'?: (_powercontext_memory_v1_TagMatch);
  /**
   * Drop hits whose score is below this (the RRF score of Hit.score).
   */
  'minScore'?: (number | string);
  '_minScore'?: "minScore";
}

export interface SearchRequest__Output {
  /**
   * Non-empty; at most 1,000 characters.
   */
  'query': (string);
  /**
   * Memories to search (at least one; duplicates removed), each at its head: revision 0 means
   * whatever the head is now (the response names it); any other revision must be the head.
   */
  'memories': (_powercontext_memory_v1_ArtifactRef__Output)[];
  /**
   * 1..100; 0 means 8.
   */
  'limit': (number);
  'mode': (_powercontext_memory_v1_SearchMode__Output);
  /**
   * Only entries of these kinds (empty: any kind). Applied inside each channel's candidate
   * query, before the limit.
   */
  'kinds': (string)[];
  /**
   * Only entries carrying these tags (empty: no tag filter), combined by tag_match.
   */
  'tags': (string)[];
  'tagMatch': (_powercontext_memory_v1_TagMatch__Output);
  /**
   * Drop hits whose score is below this (the RRF score of Hit.score).
   */
  'minScore'?: (number);
  '_minScore'?: "minScore";
}
