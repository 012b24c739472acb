// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';

export interface MergeResponse {
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'contentHash'?: (string);
  'changes'?: (_powercontext_memory_v1_MemoryChange)[];
  /**
   * The new entry.
   */
  'result'?: (_powercontext_memory_v1_EntryRef | null);
}

export interface MergeResponse__Output {
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'contentHash': (string);
  'changes': (_powercontext_memory_v1_MemoryChange__Output)[];
  /**
   * The new entry.
   */
  'result': (_powercontext_memory_v1_EntryRef__Output | null);
}
