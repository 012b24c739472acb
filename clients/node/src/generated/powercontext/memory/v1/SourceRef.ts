// Original file: powercontext/memory/v1/types.proto


/**
 * Exact reference to a persisted, immutable Source.
 */
export interface SourceRef {
  'sourceId'?: (string);
  /**
   * SHA-256 (64 lowercase hex) of the Source's canonical record; must match the stored Source.
   */
  'contentHash'?: (string);
}

/**
 * Exact reference to a persisted, immutable Source.
 */
export interface SourceRef__Output {
  'sourceId': (string);
  /**
   * SHA-256 (64 lowercase hex) of the Source's canonical record; must match the stored Source.
   */
  'contentHash': (string);
}
