// Original file: powercontext/memory/v1/memory_service.proto

/**
 * What happened to one input of Remember.
 */
export const EntryOutcome = {
  ENTRY_OUTCOME_UNSPECIFIED: 'ENTRY_OUTCOME_UNSPECIFIED',
  ENTRY_OUTCOME_ADDED: 'ENTRY_OUTCOME_ADDED',
  ENTRY_OUTCOME_REVISED: 'ENTRY_OUTCOME_REVISED',
  /**
   * A revision whose content equals the current version.
   */
  ENTRY_OUTCOME_UNCHANGED: 'ENTRY_OUTCOME_UNCHANGED',
  /**
   * An add identical to an active entry or to an earlier input of the same batch.
   */
  ENTRY_OUTCOME_DUPLICATE: 'ENTRY_OUTCOME_DUPLICATE',
} as const;

/**
 * What happened to one input of Remember.
 */
export type EntryOutcome =
  | 'ENTRY_OUTCOME_UNSPECIFIED'
  | 0
  | 'ENTRY_OUTCOME_ADDED'
  | 1
  | 'ENTRY_OUTCOME_REVISED'
  | 2
  /**
   * A revision whose content equals the current version.
   */
  | 'ENTRY_OUTCOME_UNCHANGED'
  | 3
  /**
   * An add identical to an active entry or to an earlier input of the same batch.
   */
  | 'ENTRY_OUTCOME_DUPLICATE'
  | 4

/**
 * What happened to one input of Remember.
 */
export type EntryOutcome__Output = typeof EntryOutcome[keyof typeof EntryOutcome]
