// Original file: powercontext/memory/v1/types.proto

import type { Citation as _powercontext_memory_v1_Citation, Citation__Output as _powercontext_memory_v1_Citation__Output } from '../../../powercontext/memory/v1/Citation';
import type { EntryStatus as _powercontext_memory_v1_EntryStatus, EntryStatus__Output as _powercontext_memory_v1_EntryStatus__Output } from '../../../powercontext/memory/v1/EntryStatus';

/**
 * One entry of a listing: metadata, and the text only when asked for.
 */
export interface ListedEntry {
  /**
   * The exact version at the revision read: a valid Citation for Expand.
   */
  'citation'?: (_powercontext_memory_v1_Citation | null);
  'kind'?: (string);
  'description'?: (string);
  'status'?: (_powercontext_memory_v1_EntryStatus);
  'tags'?: (string)[];
  'entryContentHash'?: (string);
  /**
   * Set when status is MERGED.
   */
  'mergedIntoEntryId'?: (string);
  /**
   * Only when the request asked for text (ListEntries include_text); never in a recall manifest.
   */
  'text'?: (string);
}

/**
 * One entry of a listing: metadata, and the text only when asked for.
 */
export interface ListedEntry__Output {
  /**
   * The exact version at the revision read: a valid Citation for Expand.
   */
  'citation': (_powercontext_memory_v1_Citation__Output | null);
  'kind': (string);
  'description': (string);
  'status': (_powercontext_memory_v1_EntryStatus__Output);
  'tags': (string)[];
  'entryContentHash': (string);
  /**
   * Set when status is MERGED.
   */
  'mergedIntoEntryId': (string);
  /**
   * Only when the request asked for text (ListEntries include_text); never in a recall manifest.
   */
  'text': (string);
}
