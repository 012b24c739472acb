// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { TagMatch as _powercontext_memory_v1_TagMatch, TagMatch__Output as _powercontext_memory_v1_TagMatch__Output } from '../../../powercontext/memory/v1/TagMatch';

export interface GetRecallManifestRequest {
  /**
   * revision 0: the current head. Later pages read the revision the first page read (its
   * token carries it), so one walk by entry id is one consistent revision; 0 or that revision.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * 1..100; 0 means 50. Anything else is INVALID_ARGUMENT.
   */
  'pageSize'?: (number);
  /**
   * next_page_token of the previous page, with the same memory, filters and caller.
   */
  'pageToken'?: (string);
  'kinds'?: (string)[];
  'tags'?: (string)[];
  'tagMatch'?: (_powercontext_memory_v1_TagMatch);
}

export interface GetRecallManifestRequest__Output {
  /**
   * revision 0: the current head. Later pages read the revision the first page read (its
   * token carries it), so one walk by entry id is one consistent revision; 0 or that revision.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * 1..100; 0 means 50. Anything else is INVALID_ARGUMENT.
   */
  'pageSize': (number);
  /**
   * next_page_token of the previous page, with the same memory, filters and caller.
   */
  'pageToken': (string);
  'kinds': (string)[];
  'tags': (string)[];
  'tagMatch': (_powercontext_memory_v1_TagMatch__Output);
}
