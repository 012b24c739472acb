// Original file: powercontext/memory/v1/memory_service.proto

import type { EntryOutcome as _powercontext_memory_v1_EntryOutcome, EntryOutcome__Output as _powercontext_memory_v1_EntryOutcome__Output } from '../../../powercontext/memory/v1/EntryOutcome';

/**
 * Result for the input at the same index.
 */
export interface EntryResult {
  'outcome'?: (_powercontext_memory_v1_EntryOutcome);
  'entryId'?: (string);
  'entryVersionId'?: (string);
}

/**
 * Result for the input at the same index.
 */
export interface EntryResult__Output {
  'outcome': (_powercontext_memory_v1_EntryOutcome__Output);
  'entryId': (string);
  'entryVersionId': (string);
}
