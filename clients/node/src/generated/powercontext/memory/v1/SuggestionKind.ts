// Original file: powercontext/memory/v1/types.proto

/**
 * What a candidate adapter suggests but never does itself: the caller decides.
 */
export const SuggestionKind = {
  SUGGESTION_KIND_UNSPECIFIED: 'SUGGESTION_KIND_UNSPECIFIED',
  /**
   * Forget this entry: an explicit user instruction named exactly one active entry, or its
   * evidence no longer derives it (absence alone is not invalidation: never applied for you).
   */
  SUGGESTION_KIND_FORGET: 'SUGGESTION_KIND_FORGET',
  /**
   * An instruction (forget / revise) that did not name exactly one active entry: `entries`
   * lists the candidates it could mean (maybe none); ask the user.
   */
  SUGGESTION_KIND_AMBIGUOUS: 'SUGGESTION_KIND_AMBIGUOUS',
} as const;

/**
 * What a candidate adapter suggests but never does itself: the caller decides.
 */
export type SuggestionKind =
  | 'SUGGESTION_KIND_UNSPECIFIED'
  | 0
  /**
   * Forget this entry: an explicit user instruction named exactly one active entry, or its
   * evidence no longer derives it (absence alone is not invalidation: never applied for you).
   */
  | 'SUGGESTION_KIND_FORGET'
  | 1
  /**
   * An instruction (forget / revise) that did not name exactly one active entry: `entries`
   * lists the candidates it could mean (maybe none); ask the user.
   */
  | 'SUGGESTION_KIND_AMBIGUOUS'
  | 2

/**
 * What a candidate adapter suggests but never does itself: the caller decides.
 */
export type SuggestionKind__Output = typeof SuggestionKind[keyof typeof SuggestionKind]
