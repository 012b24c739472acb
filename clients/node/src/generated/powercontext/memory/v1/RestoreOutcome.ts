// Original file: powercontext/memory/v1/types.proto

import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';

/**
 * What a restore or undo-merge does (or, previewed, would do), as exact refs.
 */
export interface RestoreOutcome {
  /**
   * Entries that are (would be) active again. After the write: their exact versions at the new
   * head (a restored historical version is a new version). A Restore that changes nothing
   * (the entry is already active) names the entry at its current version.
   */
  'restored'?: (_powercontext_memory_v1_EntryRef)[];
  /**
   * Merge results that are (would be) made inactive.
   */
  'retired'?: (_powercontext_memory_v1_EntryRef)[];
  /**
   * Entry ids of the merge results whose merges are undone, outermost first.
   */
  'undoneMergeResults'?: (string)[];
}

/**
 * What a restore or undo-merge does (or, previewed, would do), as exact refs.
 */
export interface RestoreOutcome__Output {
  /**
   * Entries that are (would be) active again. After the write: their exact versions at the new
   * head (a restored historical version is a new version). A Restore that changes nothing
   * (the entry is already active) names the entry at its current version.
   */
  'restored': (_powercontext_memory_v1_EntryRef__Output)[];
  /**
   * Merge results that are (would be) made inactive.
   */
  'retired': (_powercontext_memory_v1_EntryRef__Output)[];
  /**
   * Entry ids of the merge results whose merges are undone, outermost first.
   */
  'undoneMergeResults': (string)[];
}
