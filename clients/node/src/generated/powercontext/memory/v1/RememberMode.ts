// Original file: powercontext/memory/v1/memory_service.proto

/**
 * How Remember obtains its entries.
 */
export const RememberMode = {
  /**
   * Treated as REMEMBER_MODE_AUTO.
   */
  REMEMBER_MODE_UNSPECIFIED: 'REMEMBER_MODE_UNSPECIFIED',
  /**
   * APPEND when entries are given, otherwise EXTRACT when evidence is given.
   */
  REMEMBER_MODE_AUTO: 'REMEMBER_MODE_AUTO',
  /**
   * Write the given entries.
   */
  REMEMBER_MODE_APPEND: 'REMEMBER_MODE_APPEND',
  /**
   * Ask the configured candidate pipeline to derive entries from the evidence.
   */
  REMEMBER_MODE_EXTRACT: 'REMEMBER_MODE_EXTRACT',
} as const;

/**
 * How Remember obtains its entries.
 */
export type RememberMode =
  /**
   * Treated as REMEMBER_MODE_AUTO.
   */
  | 'REMEMBER_MODE_UNSPECIFIED'
  | 0
  /**
   * APPEND when entries are given, otherwise EXTRACT when evidence is given.
   */
  | 'REMEMBER_MODE_AUTO'
  | 1
  /**
   * Write the given entries.
   */
  | 'REMEMBER_MODE_APPEND'
  | 2
  /**
   * Ask the configured candidate pipeline to derive entries from the evidence.
   */
  | 'REMEMBER_MODE_EXTRACT'
  | 3

/**
 * How Remember obtains its entries.
 */
export type RememberMode__Output = typeof RememberMode[keyof typeof RememberMode]
