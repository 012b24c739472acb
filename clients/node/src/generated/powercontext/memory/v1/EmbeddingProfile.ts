// Original file: powercontext/memory/v1/types.proto


/**
 * The one embedding profile a database is created with.
 */
export interface EmbeddingProfile {
  'profileId'?: (string);
  'model'?: (string);
  'dimension'?: (number);
  /**
   * Always "l2".
   */
  'distance'?: (string);
  'normalization'?: (string);
}

/**
 * The one embedding profile a database is created with.
 */
export interface EmbeddingProfile__Output {
  'profileId': (string);
  'model': (string);
  'dimension': (number);
  /**
   * Always "l2".
   */
  'distance': (string);
  'normalization': (string);
}
