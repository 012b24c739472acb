// Original file: powercontext/memory/v1/types.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

/**
 * A Handoff citation: memory revision + entry + exact version.
 */
export interface Citation {
  'memoryRef'?: (_powercontext_memory_v1_ArtifactRef | null);
  'entryId'?: (string);
  'entryVersionId'?: (string);
}

/**
 * A Handoff citation: memory revision + entry + exact version.
 */
export interface Citation__Output {
  'memoryRef': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'entryId': (string);
  'entryVersionId': (string);
}
