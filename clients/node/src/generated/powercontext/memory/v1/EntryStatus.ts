// Original file: powercontext/memory/v1/types.proto

/**
 * Where an entry stands at a revision, as listings report it.
 */
export const EntryStatus = {
  ENTRY_STATUS_UNSPECIFIED: 'ENTRY_STATUS_UNSPECIFIED',
  ENTRY_STATUS_ACTIVE: 'ENTRY_STATUS_ACTIVE',
  /**
   * Inactive and not merged: forgotten, deduplicated, or retired by a restore.
   */
  ENTRY_STATUS_INACTIVE: 'ENTRY_STATUS_INACTIVE',
  /**
   * Inactive because a Merge folded it into `merged_into_entry_id`.
   */
  ENTRY_STATUS_MERGED: 'ENTRY_STATUS_MERGED',
} as const;

/**
 * Where an entry stands at a revision, as listings report it.
 */
export type EntryStatus =
  | 'ENTRY_STATUS_UNSPECIFIED'
  | 0
  | 'ENTRY_STATUS_ACTIVE'
  | 1
  /**
   * Inactive and not merged: forgotten, deduplicated, or retired by a restore.
   */
  | 'ENTRY_STATUS_INACTIVE'
  | 2
  /**
   * Inactive because a Merge folded it into `merged_into_entry_id`.
   */
  | 'ENTRY_STATUS_MERGED'
  | 3

/**
 * Where an entry stands at a revision, as listings report it.
 */
export type EntryStatus__Output = typeof EntryStatus[keyof typeof EntryStatus]
