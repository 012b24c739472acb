// Original file: powercontext/memory/v1/memory_service.proto

import type { Source as _powercontext_memory_v1_Source, Source__Output as _powercontext_memory_v1_Source__Output } from '../../../powercontext/memory/v1/Source';
import type { Long } from '@grpc/proto-loader';

export interface GetSourceResponse {
  /**
   * content holds the bytes from content_offset on, at most content_limit of them; every other
   * field (content_hash included) describes the whole source, whose stored bytes the server
   * verified against content_hash before answering.
   */
  'source'?: (_powercontext_memory_v1_Source | null);
  /**
   * The whole content's size in bytes.
   */
  'contentSize'?: (number | string | Long);
  /**
   * True when content stops before the end: ask again from content_offset + len(content).
   */
  'contentTruncated'?: (boolean);
}

export interface GetSourceResponse__Output {
  /**
   * content holds the bytes from content_offset on, at most content_limit of them; every other
   * field (content_hash included) describes the whole source, whose stored bytes the server
   * verified against content_hash before answering.
   */
  'source': (_powercontext_memory_v1_Source__Output | null);
  /**
   * The whole content's size in bytes.
   */
  'contentSize': (number);
  /**
   * True when content stops before the end: ask again from content_offset + len(content).
   */
  'contentTruncated': (boolean);
}
