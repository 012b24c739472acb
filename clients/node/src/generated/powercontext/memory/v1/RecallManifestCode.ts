// Original file: powercontext/memory/v1/memory_service.proto

/**
 * Why a recall manifest page has the items it has.
 */
export const RecallManifestCode = {
  RECALL_MANIFEST_CODE_UNSPECIFIED: 'RECALL_MANIFEST_CODE_UNSPECIFIED',
  /**
   * A page of the listing (possibly empty when filters match nothing here).
   */
  RECALL_MANIFEST_CODE_PAGE: 'RECALL_MANIFEST_CODE_PAGE',
  /**
   * The memory has no active entries at all at this revision.
   */
  RECALL_MANIFEST_CODE_EMPTY_MEMORY: 'RECALL_MANIFEST_CODE_EMPTY_MEMORY',
} as const;

/**
 * Why a recall manifest page has the items it has.
 */
export type RecallManifestCode =
  | 'RECALL_MANIFEST_CODE_UNSPECIFIED'
  | 0
  /**
   * A page of the listing (possibly empty when filters match nothing here).
   */
  | 'RECALL_MANIFEST_CODE_PAGE'
  | 1
  /**
   * The memory has no active entries at all at this revision.
   */
  | 'RECALL_MANIFEST_CODE_EMPTY_MEMORY'
  | 2

/**
 * Why a recall manifest page has the items it has.
 */
export type RecallManifestCode__Output = typeof RecallManifestCode[keyof typeof RecallManifestCode]
