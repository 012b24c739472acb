// Original file: powercontext/memory/v1/types.proto

import type { Long } from '@grpc/proto-loader';

/**
 * Exact reference to one immutable revision of an artifact (a Memory is an artifact).
 */
export interface ArtifactRef {
  /**
   * Stable artifact identity, e.g. "mem_art_<32 hex>". ASCII, at most 128 characters.
   */
  'artifactId'?: (string);
  /**
   * Revision number, starting at 1. Requests that accept "the current head" say so and take 0.
   */
  'revision'?: (number | string | Long);
}

/**
 * Exact reference to one immutable revision of an artifact (a Memory is an artifact).
 */
export interface ArtifactRef__Output {
  /**
   * Stable artifact identity, e.g. "mem_art_<32 hex>". ASCII, at most 128 characters.
   */
  'artifactId': (string);
  /**
   * Revision number, starting at 1. Requests that accept "the current head" say so and take 0.
   */
  'revision': (number);
}
