// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';
import type { EntryInput as _powercontext_memory_v1_EntryInput, EntryInput__Output as _powercontext_memory_v1_EntryInput__Output } from '../../../powercontext/memory/v1/EntryInput';
import type { RememberMode as _powercontext_memory_v1_RememberMode, RememberMode__Output as _powercontext_memory_v1_RememberMode__Output } from '../../../powercontext/memory/v1/RememberMode';

export interface RememberRequest {
  /**
   * The current head revision. Unset: create a new Memory.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Operation evidence (recorded in the revision lineage).
   */
  'sources'?: (_powercontext_memory_v1_SourceRef)[];
  'artifacts'?: (_powercontext_memory_v1_ArtifactRef)[];
  'entries'?: (_powercontext_memory_v1_EntryInput)[];
  'mode'?: (_powercontext_memory_v1_RememberMode);
}

export interface RememberRequest__Output {
  /**
   * The current head revision. Unset: create a new Memory.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Operation evidence (recorded in the revision lineage).
   */
  'sources': (_powercontext_memory_v1_SourceRef__Output)[];
  'artifacts': (_powercontext_memory_v1_ArtifactRef__Output)[];
  'entries': (_powercontext_memory_v1_EntryInput__Output)[];
  'mode': (_powercontext_memory_v1_RememberMode__Output);
}
