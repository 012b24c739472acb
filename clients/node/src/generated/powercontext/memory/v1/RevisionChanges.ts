// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryChange as _powercontext_memory_v1_MemoryChange, MemoryChange__Output as _powercontext_memory_v1_MemoryChange__Output } from '../../../powercontext/memory/v1/MemoryChange';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';

/**
 * The changes of one revision.
 */
export interface RevisionChanges {
  'memoryRef'?: (_powercontext_memory_v1_ArtifactRef | null);
  'contentHash'?: (string);
  'changes'?: (_powercontext_memory_v1_MemoryChange)[];
  'committedAt'?: (_google_protobuf_Timestamp | null);
}

/**
 * The changes of one revision.
 */
export interface RevisionChanges__Output {
  'memoryRef': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'contentHash': (string);
  'changes': (_powercontext_memory_v1_MemoryChange__Output)[];
  'committedAt': (_google_protobuf_Timestamp__Output | null);
}
