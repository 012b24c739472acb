// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

/**
 * One memory as listed: where it stands now.
 */
export interface MemorySummary {
  /**
   * The memory's head revision at the time of the read.
   */
  'head'?: (_powercontext_memory_v1_ArtifactRef | null);
  'activeEntries'?: (number | string | Long);
  'inactiveEntries'?: (number | string | Long);
  /**
   * When revision 1 was committed.
   */
  'createdAt'?: (_google_protobuf_Timestamp | null);
  /**
   * When the head revision was committed: the newest change.
   */
  'changedAt'?: (_google_protobuf_Timestamp | null);
  /**
   * The head revision's operation ("remember", "forget", ...; as Lineage.operation).
   */
  'lastOperation'?: (string);
  /**
   * Empty when none is set.
   */
  'label'?: (string);
  /**
   * 0 when no label was ever set; each SetMemoryLabel adds one.
   */
  'labelVersion'?: (number | string | Long);
}

/**
 * One memory as listed: where it stands now.
 */
export interface MemorySummary__Output {
  /**
   * The memory's head revision at the time of the read.
   */
  'head': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'activeEntries': (number);
  'inactiveEntries': (number);
  /**
   * When revision 1 was committed.
   */
  'createdAt': (_google_protobuf_Timestamp__Output | null);
  /**
   * When the head revision was committed: the newest change.
   */
  'changedAt': (_google_protobuf_Timestamp__Output | null);
  /**
   * The head revision's operation ("remember", "forget", ...; as Lineage.operation).
   */
  'lastOperation': (string);
  /**
   * Empty when none is set.
   */
  'label': (string);
  /**
   * 0 when no label was ever set; each SetMemoryLabel adds one.
   */
  'labelVersion': (number);
}
