// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { OrganizeStep as _powercontext_memory_v1_OrganizeStep, OrganizeStep__Output as _powercontext_memory_v1_OrganizeStep__Output } from '../../../powercontext/memory/v1/OrganizeStep';

export interface OrganizeRequest {
  /**
   * The current head revision.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Empty: dedupe then normalize.
   */
  'steps'?: (_powercontext_memory_v1_OrganizeStep)[];
}

export interface OrganizeRequest__Output {
  /**
   * The current head revision.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Empty: dedupe then normalize.
   */
  'steps': (_powercontext_memory_v1_OrganizeStep__Output)[];
}
