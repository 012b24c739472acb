// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';
import type { EntryResult as _powercontext_memory_v1_EntryResult, EntryResult__Output as _powercontext_memory_v1_EntryResult__Output } from '../../../powercontext/memory/v1/EntryResult';
import type { Suggestion as _powercontext_memory_v1_Suggestion, Suggestion__Output as _powercontext_memory_v1_Suggestion__Output } from '../../../powercontext/memory/v1/Suggestion';
import type { EntryInput as _powercontext_memory_v1_EntryInput, EntryInput__Output as _powercontext_memory_v1_EntryInput__Output } from '../../../powercontext/memory/v1/EntryInput';

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
  /**
   * EXTRACT: what the candidate pipeline suggests and leaves to the caller (forget an entry,
   * or an instruction that named no single entry). Never applied by the server.
   */
  'suggestions'?: (_powercontext_memory_v1_Suggestion)[];
  /**
   * EXTRACT: the entries the pipeline proposed, in `results` order (APPEND: empty).
   */
  'candidates'?: (_powercontext_memory_v1_EntryInput)[];
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
  /**
   * EXTRACT: what the candidate pipeline suggests and leaves to the caller (forget an entry,
   * or an instruction that named no single entry). Never applied by the server.
   */
  'suggestions': (_powercontext_memory_v1_Suggestion__Output)[];
  /**
   * EXTRACT: the entries the pipeline proposed, in `results` order (APPEND: empty).
   */
  'candidates': (_powercontext_memory_v1_EntryInput__Output)[];
}
