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
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId'?: (string);
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
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId': (string);
}
