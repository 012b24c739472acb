// Original file: powercontext/memory/v1/types.proto

import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

/**
 * Operation evidence of one revision (not part of the content hash).
 */
export interface Lineage {
  /**
   * "remember", "forget", "reactivate", "organize", "merge", "restore" or "undo_merge".
   */
  'operation'?: (string);
  'sources'?: (_powercontext_memory_v1_SourceRef)[];
  'artifacts'?: (_powercontext_memory_v1_ArtifactRef)[];
}

/**
 * Operation evidence of one revision (not part of the content hash).
 */
export interface Lineage__Output {
  /**
   * "remember", "forget", "reactivate", "organize", "merge", "restore" or "undo_merge".
   */
  'operation': (string);
  'sources': (_powercontext_memory_v1_SourceRef__Output)[];
  'artifacts': (_powercontext_memory_v1_ArtifactRef__Output)[];
}
