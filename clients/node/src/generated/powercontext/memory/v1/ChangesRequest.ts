// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { Long } from '@grpc/proto-loader';

export interface ChangesRequest {
  /**
   * Target revision; 0 means the current head (each RevisionChanges names its revision).
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * 0 reads the whole history.
   */
  'sinceRevision'?: (number | string | Long);
  /**
   * Same as since_revision = since_ref.revision; must name the same memory.
   */
  'sinceRef'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Stay open after the history and deliver every new revision in order.
   */
  'follow'?: (boolean);
  /**
   * Exclusive lower bound. Absent: only the target revision's own changes
   * (with follow: the target's changes, then every later revision).
   */
  'since'?: "sinceRevision"|"sinceRef";
}

export interface ChangesRequest__Output {
  /**
   * Target revision; 0 means the current head (each RevisionChanges names its revision).
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * 0 reads the whole history.
   */
  'sinceRevision'?: (number);
  /**
   * Same as since_revision = since_ref.revision; must name the same memory.
   */
  'sinceRef'?: (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Stay open after the history and deliver every new revision in order.
   */
  'follow': (boolean);
  /**
   * Exclusive lower bound. Absent: only the target revision's own changes
   * (with follow: the target's changes, then every later revision).
   */
  'since'?: "sinceRevision"|"sinceRef";
}
