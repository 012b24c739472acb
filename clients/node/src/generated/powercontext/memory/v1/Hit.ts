// Original file: powercontext/memory/v1/types.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { SearchChannel as _powercontext_memory_v1_SearchChannel, SearchChannel__Output as _powercontext_memory_v1_SearchChannel__Output } from '../../../powercontext/memory/v1/SearchChannel';

/**
 * One search result; memory_ref + entry_id + entry_version_id is a valid Citation.
 */
export interface Hit {
  'memoryRef'?: (_powercontext_memory_v1_ArtifactRef | null);
  'entryId'?: (string);
  'entryVersionId'?: (string);
  'entryContentHash'?: (string);
  'kind'?: (string);
  'text'?: (string);
  /**
   * Reciprocal rank fusion score (k = 60): the sum of 1 / (60 + rank) over the channels that
   * rank the hit within their first 10, else its best channel's 1 / (60 + rank) alone.
   * Helpful, not authoritative.
   */
  'score'?: (number | string);
  'matchedBy'?: (_powercontext_memory_v1_SearchChannel)[];
  'description'?: (string);
  'tags'?: (string)[];
  /**
   * Parallel to matched_by: the hit's 1-based rank in that channel's admitted candidates
   * (see score for how ranks make it).
   */
  'channelRanks'?: (number)[];
}

/**
 * One search result; memory_ref + entry_id + entry_version_id is a valid Citation.
 */
export interface Hit__Output {
  'memoryRef': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'entryId': (string);
  'entryVersionId': (string);
  'entryContentHash': (string);
  'kind': (string);
  'text': (string);
  /**
   * Reciprocal rank fusion score (k = 60): the sum of 1 / (60 + rank) over the channels that
   * rank the hit within their first 10, else its best channel's 1 / (60 + rank) alone.
   * Helpful, not authoritative.
   */
  'score': (number);
  'matchedBy': (_powercontext_memory_v1_SearchChannel__Output)[];
  'description': (string);
  'tags': (string)[];
  /**
   * Parallel to matched_by: the hit's 1-based rank in that channel's admitted candidates
   * (see score for how ranks make it).
   */
  'channelRanks': (number)[];
}
