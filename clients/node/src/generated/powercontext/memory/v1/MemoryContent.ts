// Original file: powercontext/memory/v1/types.proto

import type { MemoryManifest as _powercontext_memory_v1_MemoryManifest, MemoryManifest__Output as _powercontext_memory_v1_MemoryManifest__Output } from '../../../powercontext/memory/v1/MemoryManifest';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';

/**
 * The hashed content of one Memory revision.
 */
export interface MemoryContent {
  /**
   * Always "powercontext.memory.v1".
   */
  'schema'?: (string);
  'manifest'?: (_powercontext_memory_v1_MemoryManifest | null);
  /**
   * Sorted by entry_id; at most one change per entry.
   */
  'changes'?: (_powercontext_memory_v1_MemoryChange)[];
}

/**
 * The hashed content of one Memory revision.
 */
export interface MemoryContent__Output {
  /**
   * Always "powercontext.memory.v1".
   */
  'schema': (string);
  'manifest': (_powercontext_memory_v1_MemoryManifest__Output | null);
  /**
   * Sorted by entry_id; at most one change per entry.
   */
  'changes': (_powercontext_memory_v1_MemoryChange__Output)[];
}
