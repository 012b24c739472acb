// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface RestoreRequest {
  /**
   * The current head revision. With preview_token, revision 0 is allowed: the token's check
   * that nothing relevant changed takes the place of the head check.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'entryId'?: (string);
  /**
   * Optional: restore this historical version of the entry (a new version linked to the
   * current one). Unset: the version the entry had when it was forgotten or frozen.
   */
  'entryVersionId'?: (string);
  /**
   * From PreviewRestore with the same memory, entry and version.
   */
  'previewToken'?: (string);
  'reason'?: (string);
  '_reason'?: "reason";
}

export interface RestoreRequest__Output {
  /**
   * The current head revision. With preview_token, revision 0 is allowed: the token's check
   * that nothing relevant changed takes the place of the head check.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'entryId': (string);
  /**
   * Optional: restore this historical version of the entry (a new version linked to the
   * current one). Unset: the version the entry had when it was forgotten or frozen.
   */
  'entryVersionId': (string);
  /**
   * From PreviewRestore with the same memory, entry and version.
   */
  'previewToken': (string);
  'reason'?: (string);
  '_reason'?: "reason";
}
