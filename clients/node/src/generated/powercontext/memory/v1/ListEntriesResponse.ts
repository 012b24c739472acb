// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { ListedEntry as _powercontext_memory_v1_ListedEntry, ListedEntry__Output as _powercontext_memory_v1_ListedEntry__Output } from '../../../powercontext/memory/v1/ListedEntry';

export interface ListEntriesResponse {
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'entries'?: (_powercontext_memory_v1_ListedEntry)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken'?: (string);
}

export interface ListEntriesResponse__Output {
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'entries': (_powercontext_memory_v1_ListedEntry__Output)[];
  /**
   * Empty on the last page.
   */
  'nextPageToken': (string);
}
