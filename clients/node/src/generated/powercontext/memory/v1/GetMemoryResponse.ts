// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { MemoryContent as _powercontext_memory_v1_MemoryContent, MemoryContent__Output as _powercontext_memory_v1_MemoryContent__Output } from '../../../powercontext/memory/v1/MemoryContent';
import type { Lineage as _powercontext_memory_v1_Lineage, Lineage__Output as _powercontext_memory_v1_Lineage__Output } from '../../../powercontext/memory/v1/Lineage';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface GetMemoryResponse {
  /**
   * The exact revision read.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  'content'?: (_powercontext_memory_v1_MemoryContent | null);
  /**
   * SHA-256 of the RFC 8785 canonical bytes of content.
   */
  'contentHash'?: (string);
  'lineage'?: (_powercontext_memory_v1_Lineage | null);
  'committedAt'?: (_google_protobuf_Timestamp | null);
  /**
   * The memory's head revision at the time of the read.
   */
  'headRevision'?: (number | string | Long);
  'activeEntries'?: (number | string | Long);
  'inactiveEntries'?: (number | string | Long);
  /**
   * True when content's manifest and changes were left out: asked for (metadata_only), or the
   * response would pass 3 MiB (a default client receives at most 4 MiB). content_hash still
   * names the full content; page it with ListEntries and read changes with Changes.
   */
  'contentOmitted'?: (boolean);
}

export interface GetMemoryResponse__Output {
  /**
   * The exact revision read.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  'content': (_powercontext_memory_v1_MemoryContent__Output | null);
  /**
   * SHA-256 of the RFC 8785 canonical bytes of content.
   */
  'contentHash': (string);
  'lineage': (_powercontext_memory_v1_Lineage__Output | null);
  'committedAt': (_google_protobuf_Timestamp__Output | null);
  /**
   * The memory's head revision at the time of the read.
   */
  'headRevision': (number);
  'activeEntries': (number);
  'inactiveEntries': (number);
  /**
   * True when content's manifest and changes were left out: asked for (metadata_only), or the
   * response would pass 3 MiB (a default client receives at most 4 MiB). content_hash still
   * names the full content; page it with ListEntries and read changes with Changes.
   */
  'contentOmitted': (boolean);
}
