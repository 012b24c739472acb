// Original file: powercontext/memory/v1/memory_service.proto

/**
 * A step of Organize.
 */
export const OrganizeStep = {
  ORGANIZE_STEP_UNSPECIFIED: 'ORGANIZE_STEP_UNSPECIFIED',
  /**
   * Deactivate exact duplicates among active entries, keeping the smallest entry_id.
   */
  ORGANIZE_STEP_DEDUPE: 'ORGANIZE_STEP_DEDUPE',
  /**
   * Re-normalize text and evidence refs; a new version only where they change.
   */
  ORGANIZE_STEP_NORMALIZE: 'ORGANIZE_STEP_NORMALIZE',
} as const;

/**
 * A step of Organize.
 */
export type OrganizeStep =
  | 'ORGANIZE_STEP_UNSPECIFIED'
  | 0
  /**
   * Deactivate exact duplicates among active entries, keeping the smallest entry_id.
   */
  | 'ORGANIZE_STEP_DEDUPE'
  | 1
  /**
   * Re-normalize text and evidence refs; a new version only where they change.
   */
  | 'ORGANIZE_STEP_NORMALIZE'
  | 2

/**
 * A step of Organize.
 */
export type OrganizeStep__Output = typeof OrganizeStep[keyof typeof OrganizeStep]
