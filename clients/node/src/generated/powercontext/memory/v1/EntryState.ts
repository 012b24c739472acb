// Original file: powercontext/memory/v1/types.proto

/**
 * Whether a manifest entry is part of the searchable current state.
 */
export const EntryState = {
  ENTRY_STATE_UNSPECIFIED: 'ENTRY_STATE_UNSPECIFIED',
  ENTRY_STATE_ACTIVE: 'ENTRY_STATE_ACTIVE',
  ENTRY_STATE_INACTIVE: 'ENTRY_STATE_INACTIVE',
} as const;

/**
 * Whether a manifest entry is part of the searchable current state.
 */
export type EntryState =
  | 'ENTRY_STATE_UNSPECIFIED'
  | 0
  | 'ENTRY_STATE_ACTIVE'
  | 1
  | 'ENTRY_STATE_INACTIVE'
  | 2

/**
 * Whether a manifest entry is part of the searchable current state.
 */
export type EntryState__Output = typeof EntryState[keyof typeof EntryState]
