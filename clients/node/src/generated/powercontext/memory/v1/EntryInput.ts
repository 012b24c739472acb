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
  /**
   * One line of 1..200 characters. Unset: derived from the text (whitespace runs collapsed,
   * cut to 200 characters ending with "…" when cut). No model is ever called for it.
   */
  'description'?: (string);
  /**
   * At most 32 tags, each 1..64 characters, one line; stored NFC-normalized, sorted, distinct.
   * A revision replaces the tags with these.
   */
  'tags'?: (string)[];
  '_reason'?: "reason";
  '_description'?: "description";
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
  /**
   * One line of 1..200 characters. Unset: derived from the text (whitespace runs collapsed,
   * cut to 200 characters ending with "…" when cut). No model is ever called for it.
   */
  'description'?: (string);
  /**
   * At most 32 tags, each 1..64 characters, one line; stored NFC-normalized, sorted, distinct.
   * A revision replaces the tags with these.
   */
  'tags': (string)[];
  '_reason'?: "reason";
  '_description'?: "description";
}
