// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';
import type { RestoreOutcome as _powercontext_memory_v1_RestoreOutcome, RestoreOutcome__Output as _powercontext_memory_v1_RestoreOutcome__Output } from '../../../powercontext/memory/v1/RestoreOutcome';

export interface UndoMergeResponse {
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'changed'?: (boolean);
  'contentHash'?: (string);
  'changes'?: (_powercontext_memory_v1_MemoryChange)[];
  'outcome'?: (_powercontext_memory_v1_RestoreOutcome | null);
}

export interface UndoMergeResponse__Output {
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'changed': (boolean);
  'contentHash': (string);
  'changes': (_powercontext_memory_v1_MemoryChange__Output)[];
  'outcome': (_powercontext_memory_v1_RestoreOutcome__Output | null);
}
