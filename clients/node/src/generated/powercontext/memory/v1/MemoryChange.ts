// Original file: powercontext/memory/v1/types.proto

import type { ChangeOp as _powercontext_memory_v1_ChangeOp, ChangeOp__Output as _powercontext_memory_v1_ChangeOp__Output } from '../../../powercontext/memory/v1/ChangeOp';

/**
 * One compact change of a revision. Never carries entry text.
 */
export interface MemoryChange {
  'op'?: (_powercontext_memory_v1_ChangeOp);
  'entryId'?: (string);
  'fromEntryVersionId'?: (string);
  'toEntryVersionId'?: (string);
  /**
   * At most 512 code points after NFC and trimming; "dedupe" and "normalize" come from Organize.
   */
  'reason'?: (string);
  /**
   * A DEACTIVATE by a Merge: the entry the input was folded into (part of the hashed change;
   * absent from every other change).
   */
  'mergedIntoEntryId'?: (string);
  '_fromEntryVersionId'?: "fromEntryVersionId";
  '_toEntryVersionId'?: "toEntryVersionId";
  '_reason'?: "reason";
  '_mergedIntoEntryId'?: "mergedIntoEntryId";
}

/**
 * One compact change of a revision. Never carries entry text.
 */
export interface MemoryChange__Output {
  'op': (_powercontext_memory_v1_ChangeOp__Output);
  'entryId': (string);
  'fromEntryVersionId'?: (string);
  'toEntryVersionId'?: (string);
  /**
   * At most 512 code points after NFC and trimming; "dedupe" and "normalize" come from Organize.
   */
  'reason'?: (string);
  /**
   * A DEACTIVATE by a Merge: the entry the input was folded into (part of the hashed change;
   * absent from every other change).
   */
  'mergedIntoEntryId'?: (string);
  '_fromEntryVersionId'?: "fromEntryVersionId";
  '_toEntryVersionId'?: "toEntryVersionId";
  '_reason'?: "reason";
  '_mergedIntoEntryId'?: "mergedIntoEntryId";
}
