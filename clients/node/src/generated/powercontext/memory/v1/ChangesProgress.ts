// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';

/**
 * Sent on idle follow streams: every revision up to head has been delivered.
 */
export interface ChangesProgress {
  'head'?: (_powercontext_memory_v1_ArtifactRef | null);
  'sentAt'?: (_google_protobuf_Timestamp | null);
}

/**
 * Sent on idle follow streams: every revision up to head has been delivered.
 */
export interface ChangesProgress__Output {
  'head': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'sentAt': (_google_protobuf_Timestamp__Output | null);
}
