// Original file: powercontext/memory/v1/types.proto

/**
 * How several tag filters combine.
 */
export const TagMatch = {
  /**
   * Treated as TAG_MATCH_ALL.
   */
  TAG_MATCH_UNSPECIFIED: 'TAG_MATCH_UNSPECIFIED',
  /**
   * The entry carries every tag named.
   */
  TAG_MATCH_ALL: 'TAG_MATCH_ALL',
  /**
   * The entry carries at least one tag named.
   */
  TAG_MATCH_ANY: 'TAG_MATCH_ANY',
} as const;

/**
 * How several tag filters combine.
 */
export type TagMatch =
  /**
   * Treated as TAG_MATCH_ALL.
   */
  | 'TAG_MATCH_UNSPECIFIED'
  | 0
  /**
   * The entry carries every tag named.
   */
  | 'TAG_MATCH_ALL'
  | 1
  /**
   * The entry carries at least one tag named.
   */
  | 'TAG_MATCH_ANY'
  | 2

/**
 * How several tag filters combine.
 */
export type TagMatch__Output = typeof TagMatch[keyof typeof TagMatch]
