// Original file: powercontext/memory/v1/types.proto

/**
 * Which restore a preview or token is for.
 */
export const RestoreOperation = {
  RESTORE_OPERATION_UNSPECIFIED: 'RESTORE_OPERATION_UNSPECIFIED',
  /**
   * Restore: bring one entry back (undoing the merges that froze it).
   */
  RESTORE_OPERATION_RESTORE: 'RESTORE_OPERATION_RESTORE',
  /**
   * UndoMerge: undo the merge that produced one entry.
   */
  RESTORE_OPERATION_UNDO_MERGE: 'RESTORE_OPERATION_UNDO_MERGE',
} as const;

/**
 * Which restore a preview or token is for.
 */
export type RestoreOperation =
  | 'RESTORE_OPERATION_UNSPECIFIED'
  | 0
  /**
   * Restore: bring one entry back (undoing the merges that froze it).
   */
  | 'RESTORE_OPERATION_RESTORE'
  | 1
  /**
   * UndoMerge: undo the merge that produced one entry.
   */
  | 'RESTORE_OPERATION_UNDO_MERGE'
  | 2

/**
 * Which restore a preview or token is for.
 */
export type RestoreOperation__Output = typeof RestoreOperation[keyof typeof RestoreOperation]
