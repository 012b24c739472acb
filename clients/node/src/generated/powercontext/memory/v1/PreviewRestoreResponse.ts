// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { RestoreOutcome as _powercontext_memory_v1_RestoreOutcome, RestoreOutcome__Output as _powercontext_memory_v1_RestoreOutcome__Output } from '../../../powercontext/memory/v1/RestoreOutcome';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';

export interface PreviewRestoreResponse {
  /**
   * The head previewed.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * What applying would do; refs are the current versions.
   */
  'outcome'?: (_powercontext_memory_v1_RestoreOutcome | null);
  /**
   * False when applying would change nothing.
   */
  'wouldChange'?: (boolean);
  /**
   * Pass to Restore / UndoMerge; bound to the caller, memory, operation and target.
   */
  'previewToken'?: (string);
  'expiresAt'?: (_google_protobuf_Timestamp | null);
}

export interface PreviewRestoreResponse__Output {
  /**
   * The head previewed.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * What applying would do; refs are the current versions.
   */
  'outcome': (_powercontext_memory_v1_RestoreOutcome__Output | null);
  /**
   * False when applying would change nothing.
   */
  'wouldChange': (boolean);
  /**
   * Pass to Restore / UndoMerge; bound to the caller, memory, operation and target.
   */
  'previewToken': (string);
  'expiresAt': (_google_protobuf_Timestamp__Output | null);
}
