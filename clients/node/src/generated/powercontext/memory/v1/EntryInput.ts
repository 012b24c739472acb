// Original file: powercontext/memory/v1/types.proto

import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';
import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

/**
 * A candidate for Remember: a new entry (entry unset) or a revision of the current active version.
 */
export interface EntryInput {
  /**
   * Unset: add a new entry. Set: revise exactly this current, active version.
   */
  'entry'?: (_powercontext_memory_v1_EntryRef | null);
  'kind'?: (string);
  'text'?: (string);
  /**
   * Direct evidence of the text. For a new entry: a subset of the operation evidence.
   */
  'sources'?: (_powercontext_memory_v1_SourceRef)[];
  'artifacts'?: (_powercontext_memory_v1_ArtifactRef)[];
  'reason'?: (string);
  '_reason'?: "reason";
}

/**
 * A candidate for Remember: a new entry (entry unset) or a revision of the current active version.
 */
export interface EntryInput__Output {
  /**
   * Unset: add a new entry. Set: revise exactly this current, active version.
   */
  'entry': (_powercontext_memory_v1_EntryRef__Output | null);
  'kind': (string);
  'text': (string);
  /**
   * Direct evidence of the text. For a new entry: a subset of the operation evidence.
   */
  'sources': (_powercontext_memory_v1_SourceRef__Output)[];
  'artifacts': (_powercontext_memory_v1_ArtifactRef__Output)[];
  'reason'?: (string);
  '_reason'?: "reason";
}
