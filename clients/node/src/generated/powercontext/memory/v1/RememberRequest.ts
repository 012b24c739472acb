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
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId'?: (string);
  /**
   * EXTRACT: run only these candidate adapters / extractors (names as in Capabilities); empty
   * runs the default pipeline. Naming one that is not available is FAILED_PRECONDITION
   * (CAPABILITY_NOT_SUPPORTED).
   */
  'extractors'?: (string)[];
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
  /**
   * Idempotency key (AIP-155), e.g. a UUID4; at most 128 ASCII characters. A retry with the
   * same id and the same request returns the first outcome, even if the head has moved since;
   * the same id with a different request is refused (ALREADY_EXISTS, REQUEST_ID_REUSED).
   * Outcomes are kept for 24 hours (see the README).
   */
  'requestId': (string);
  /**
   * EXTRACT: run only these candidate adapters / extractors (names as in Capabilities); empty
   * runs the default pipeline. Naming one that is not available is FAILED_PRECONDITION
   * (CAPABILITY_NOT_SUPPORTED).
   */
  'extractors': (string)[];
}
