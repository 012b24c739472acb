// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';

export interface ForgetRequest {
  /**
   * The current head revision.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Current versions to deactivate.
   */
  'entries'?: (_powercontext_memory_v1_EntryRef)[];
  'reason'?: (string);
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId'?: (string);
  '_reason'?: "reason";
}

export interface ForgetRequest__Output {
  /**
   * The current head revision.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Current versions to deactivate.
   */
  'entries': (_powercontext_memory_v1_EntryRef__Output)[];
  'reason'?: (string);
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId': (string);
  '_reason'?: "reason";
}
