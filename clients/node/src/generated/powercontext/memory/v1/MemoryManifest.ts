// Original file: powercontext/memory/v1/types.proto

import type { MemoryManifestEntry as _powercontext_memory_v1_MemoryManifestEntry, MemoryManifestEntry__Output as _powercontext_memory_v1_MemoryManifestEntry__Output } from '../../../powercontext/memory/v1/MemoryManifestEntry';

/**
 * The authoritative state of every entry at one revision, sorted by entry_id.
 */
export interface MemoryManifest {
  /**
   * Always "flat-v1".
   */
  'format'?: (string);
  'entries'?: (_powercontext_memory_v1_MemoryManifestEntry)[];
}

/**
 * The authoritative state of every entry at one revision, sorted by entry_id.
 */
export interface MemoryManifest__Output {
  /**
   * Always "flat-v1".
   */
  'format': (string);
  'entries': (_powercontext_memory_v1_MemoryManifestEntry__Output)[];
}
