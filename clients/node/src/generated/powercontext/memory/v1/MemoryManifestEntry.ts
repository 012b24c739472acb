// Original file: powercontext/memory/v1/types.proto

import type { EntryState as _powercontext_memory_v1_EntryState, EntryState__Output as _powercontext_memory_v1_EntryState__Output } from '../../../powercontext/memory/v1/EntryState';

/**
 * One row of a revision's catalogue. Holds no text: the text lives in the entry version.
 */
export interface MemoryManifestEntry {
  'entryId'?: (string);
  'entryVersionId'?: (string);
  'entryContentHash'?: (string);
  'state'?: (_powercontext_memory_v1_EntryState);
  /**
   * Set on an inactive entry that a Merge folded into another entry: that entry's id. Absent
   * from the canonical bytes when empty, so every earlier manifest hashes as before.
   */
  'mergedIntoEntryId'?: (string);
}

/**
 * One row of a revision's catalogue. Holds no text: the text lives in the entry version.
 */
export interface MemoryManifestEntry__Output {
  'entryId': (string);
  'entryVersionId': (string);
  'entryContentHash': (string);
  'state': (_powercontext_memory_v1_EntryState__Output);
  /**
   * Set on an inactive entry that a Merge folded into another entry: that entry's id. Absent
   * from the canonical bytes when empty, so every earlier manifest hashes as before.
   */
  'mergedIntoEntryId': (string);
}
