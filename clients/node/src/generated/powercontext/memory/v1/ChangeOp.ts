// Original file: powercontext/memory/v1/types.proto

/**
 * What a change did to one entry.
 */
export const ChangeOp = {
  CHANGE_OP_UNSPECIFIED: 'CHANGE_OP_UNSPECIFIED',
  /**
   * (none, new version)
   */
  CHANGE_OP_ADD: 'CHANGE_OP_ADD',
  /**
   * (old version, new version)
   */
  CHANGE_OP_REVISE: 'CHANGE_OP_REVISE',
  /**
   * (current version, none)
   */
  CHANGE_OP_DEACTIVATE: 'CHANGE_OP_DEACTIVATE',
  /**
   * (none, current version)
   */
  CHANGE_OP_REACTIVATE: 'CHANGE_OP_REACTIVATE',
} as const;

/**
 * What a change did to one entry.
 */
export type ChangeOp =
  | 'CHANGE_OP_UNSPECIFIED'
  | 0
  /**
   * (none, new version)
   */
  | 'CHANGE_OP_ADD'
  | 1
  /**
   * (old version, new version)
   */
  | 'CHANGE_OP_REVISE'
  | 2
  /**
   * (current version, none)
   */
  | 'CHANGE_OP_DEACTIVATE'
  | 3
  /**
   * (none, current version)
   */
  | 'CHANGE_OP_REACTIVATE'
  | 4

/**
 * What a change did to one entry.
 */
export type ChangeOp__Output = typeof ChangeOp[keyof typeof ChangeOp]
