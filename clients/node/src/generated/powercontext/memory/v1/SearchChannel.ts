// Original file: powercontext/memory/v1/types.proto

/**
 * A retrieval channel that admitted a hit.
 */
export const SearchChannel = {
  SEARCH_CHANNEL_UNSPECIFIED: 'SEARCH_CHANNEL_UNSPECIFIED',
  SEARCH_CHANNEL_FTS: 'SEARCH_CHANNEL_FTS',
  SEARCH_CHANNEL_VECTOR: 'SEARCH_CHANNEL_VECTOR',
} as const;

/**
 * A retrieval channel that admitted a hit.
 */
export type SearchChannel =
  | 'SEARCH_CHANNEL_UNSPECIFIED'
  | 0
  | 'SEARCH_CHANNEL_FTS'
  | 1
  | 'SEARCH_CHANNEL_VECTOR'
  | 2

/**
 * A retrieval channel that admitted a hit.
 */
export type SearchChannel__Output = typeof SearchChannel[keyof typeof SearchChannel]
