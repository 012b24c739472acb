// Original file: powercontext/memory/v1/memory_service.proto

import type { Source as _powercontext_memory_v1_Source, Source__Output as _powercontext_memory_v1_Source__Output } from '../../../powercontext/memory/v1/Source';
import type { Long } from '@grpc/proto-loader';

export interface PutSourceResponse {
  /**
   * For a token limited to listed memories, created_at is when the source first became
   * readable through one of those memories (recorded for one, or cited by one).
   */
  'source'?: (_powercontext_memory_v1_Source | null);
  /**
   * False when an identical Source already existed. For a token limited to listed memories:
   * already existed among the sources those memories cite or had recorded for them, so the
   * answer tells nothing about sources outside them.
   */
  'created'?: (boolean);
  /**
   * The whole content's size in bytes. source.content echoes at most the first chunk GetSource
   * answers (3 MiB), so every accepted source's answer reaches a default client.
   */
  'contentSize'?: (number | string | Long);
  /**
   * True when source.content stops before the end: GetSource reads the rest from
   * content_offset = len(source.content).
   */
  'contentTruncated'?: (boolean);
}

export interface PutSourceResponse__Output {
  /**
   * For a token limited to listed memories, created_at is when the source first became
   * readable through one of those memories (recorded for one, or cited by one).
   */
  'source': (_powercontext_memory_v1_Source__Output | null);
  /**
   * False when an identical Source already existed. For a token limited to listed memories:
   * already existed among the sources those memories cite or had recorded for them, so the
   * answer tells nothing about sources outside them.
   */
  'created': (boolean);
  /**
   * The whole content's size in bytes. source.content echoes at most the first chunk GetSource
   * answers (3 MiB), so every accepted source's answer reaches a default client.
   */
  'contentSize': (number);
  /**
   * True when source.content stops before the end: GetSource reads the rest from
   * content_offset = len(source.content).
   */
  'contentTruncated': (boolean);
}
