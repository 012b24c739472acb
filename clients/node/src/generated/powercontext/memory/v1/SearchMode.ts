// Original file: powercontext/memory/v1/types.proto

/**
 * Retrieval mode of Search.
 */
export const SearchMode = {
  /**
   * Treated as SEARCH_MODE_AUTO.
   */
  SEARCH_MODE_UNSPECIFIED: 'SEARCH_MODE_UNSPECIFIED',
  /**
   * Hybrid when vectors can run for every selected memory, otherwise full text.
   */
  SEARCH_MODE_AUTO: 'SEARCH_MODE_AUTO',
  SEARCH_MODE_FTS: 'SEARCH_MODE_FTS',
  SEARCH_MODE_VECTOR: 'SEARCH_MODE_VECTOR',
  SEARCH_MODE_HYBRID: 'SEARCH_MODE_HYBRID',
} as const;

/**
 * Retrieval mode of Search.
 */
export type SearchMode =
  /**
   * Treated as SEARCH_MODE_AUTO.
   */
  | 'SEARCH_MODE_UNSPECIFIED'
  | 0
  /**
   * Hybrid when vectors can run for every selected memory, otherwise full text.
   */
  | 'SEARCH_MODE_AUTO'
  | 1
  | 'SEARCH_MODE_FTS'
  | 2
  | 'SEARCH_MODE_VECTOR'
  | 3
  | 'SEARCH_MODE_HYBRID'
  | 4

/**
 * Retrieval mode of Search.
 */
export type SearchMode__Output = typeof SearchMode[keyof typeof SearchMode]
