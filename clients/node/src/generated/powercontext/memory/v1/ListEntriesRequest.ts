// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { EntryStatus as _powercontext_memory_v1_EntryStatus, EntryStatus__Output as _powercontext_memory_v1_EntryStatus__Output } from '../../../powercontext/memory/v1/EntryStatus';
import type { TagMatch as _powercontext_memory_v1_TagMatch, TagMatch__Output as _powercontext_memory_v1_TagMatch__Output } from '../../../powercontext/memory/v1/TagMatch';

export interface ListEntriesRequest {
  /**
   * revision 0: the current head.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * 1..100; 0 means 50.
   */
  'pageSize'?: (number);
  'pageToken'?: (string);
  /**
   * Empty: active only.
   */
  'statuses'?: (_powercontext_memory_v1_EntryStatus)[];
  'kinds'?: (string)[];
  'tags'?: (string)[];
  'tagMatch'?: (_powercontext_memory_v1_TagMatch);
  /**
   * Include each entry's text.
   */
  'includeText'?: (boolean);
}

export interface ListEntriesRequest__Output {
  /**
   * revision 0: the current head.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * 1..100; 0 means 50.
   */
  'pageSize': (number);
  'pageToken': (string);
  /**
   * Empty: active only.
   */
  'statuses': (_powercontext_memory_v1_EntryStatus__Output)[];
  'kinds': (string)[];
  'tags': (string)[];
  'tagMatch': (_powercontext_memory_v1_TagMatch__Output);
  /**
   * Include each entry's text.
   */
  'includeText': (boolean);
}
