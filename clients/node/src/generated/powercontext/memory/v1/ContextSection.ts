// Original file: powercontext/memory/v1/types.proto

/**
 * Where a line of PrepareContext comes from.
 */
export const ContextSection = {
  CONTEXT_SECTION_UNSPECIFIED: 'CONTEXT_SECTION_UNSPECIFIED',
  /**
   * Active constraints and preferences (always first).
   */
  CONTEXT_SECTION_RULES: 'CONTEXT_SECTION_RULES',
  /**
   * Active entries relevant to the query (search).
   */
  CONTEXT_SECTION_RELEVANT: 'CONTEXT_SECTION_RELEVANT',
  /**
   * The newest active working note (a session's running state: older ones stay out).
   */
  CONTEXT_SECTION_RECENT_NOTES: 'CONTEXT_SECTION_RECENT_NOTES',
} as const;

/**
 * Where a line of PrepareContext comes from.
 */
export type ContextSection =
  | 'CONTEXT_SECTION_UNSPECIFIED'
  | 0
  /**
   * Active constraints and preferences (always first).
   */
  | 'CONTEXT_SECTION_RULES'
  | 1
  /**
   * Active entries relevant to the query (search).
   */
  | 'CONTEXT_SECTION_RELEVANT'
  | 2
  /**
   * The newest active working note (a session's running state: older ones stay out).
   */
  | 'CONTEXT_SECTION_RECENT_NOTES'
  | 3

/**
 * Where a line of PrepareContext comes from.
 */
export type ContextSection__Output = typeof ContextSection[keyof typeof ContextSection]
