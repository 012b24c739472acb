// Original file: powercontext/memory/v1/memory_service.proto

import type { Citation as _powercontext_memory_v1_Citation, Citation__Output as _powercontext_memory_v1_Citation__Output } from '../../../powercontext/memory/v1/Citation';
import type { EntryVersion as _powercontext_memory_v1_EntryVersion, EntryVersion__Output as _powercontext_memory_v1_EntryVersion__Output } from '../../../powercontext/memory/v1/EntryVersion';
import type { EntryState as _powercontext_memory_v1_EntryState, EntryState__Output as _powercontext_memory_v1_EntryState__Output } from '../../../powercontext/memory/v1/EntryState';

/**
 * A verified entry version.
 */
export interface ExpandedEntry {
  'citation'?: (_powercontext_memory_v1_Citation | null);
  'version'?: (_powercontext_memory_v1_EntryVersion | null);
  /**
   * The entry's state in the cited revision.
   */
  'state'?: (_powercontext_memory_v1_EntryState);
}

/**
 * A verified entry version.
 */
export interface ExpandedEntry__Output {
  'citation': (_powercontext_memory_v1_Citation__Output | null);
  'version': (_powercontext_memory_v1_EntryVersion__Output | null);
  /**
   * The entry's state in the cited revision.
   */
  'state': (_powercontext_memory_v1_EntryState__Output);
}
