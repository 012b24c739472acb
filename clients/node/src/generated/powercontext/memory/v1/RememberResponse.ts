// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';
import type { EntryResult as _powercontext_memory_v1_EntryResult, EntryResult__Output as _powercontext_memory_v1_EntryResult__Output } from '../../../powercontext/memory/v1/EntryResult';

export interface RememberResponse {
  /**
   * The new revision, or the unchanged head. Unset when creation had nothing to save.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'changed'?: (boolean);
  'contentHash'?: (string);
  /**
   * The changes of the new revision (empty when unchanged).
   */
  'changes'?: (_powercontext_memory_v1_MemoryChange)[];
  'results'?: (_powercontext_memory_v1_EntryResult)[];
}

export interface RememberResponse__Output {
  /**
   * The new revision, or the unchanged head. Unset when creation had nothing to save.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'changed': (boolean);
  'contentHash': (string);
  /**
   * The changes of the new revision (empty when unchanged).
   */
  'changes': (_powercontext_memory_v1_MemoryChange__Output)[];
  'results': (_powercontext_memory_v1_EntryResult__Output)[];
}
