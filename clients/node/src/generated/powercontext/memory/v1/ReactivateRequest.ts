// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';

export interface ReactivateRequest {
  /**
   * The current head revision.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Current (inactive) versions to reactivate.
   */
  'entries'?: (_powercontext_memory_v1_EntryRef)[];
  'reason'?: (string);
  '_reason'?: "reason";
}

export interface ReactivateRequest__Output {
  /**
   * The current head revision.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Current (inactive) versions to reactivate.
   */
  'entries': (_powercontext_memory_v1_EntryRef__Output)[];
  'reason'?: (string);
  '_reason'?: "reason";
}
