// Original file: powercontext/memory/v1/types.proto

import type { Citation as _powercontext_memory_v1_Citation, Citation__Output as _powercontext_memory_v1_Citation__Output } from '../../../powercontext/memory/v1/Citation';
import type { ContextSection as _powercontext_memory_v1_ContextSection, ContextSection__Output as _powercontext_memory_v1_ContextSection__Output } from '../../../powercontext/memory/v1/ContextSection';

/**
 * One entry in a PrepareContext block, with the citation that Expand verifies.
 */
export interface ContextEntry {
  'citation'?: (_powercontext_memory_v1_Citation | null);
  'kind'?: (string);
  'text'?: (string);
  'section'?: (_powercontext_memory_v1_ContextSection);
}

/**
 * One entry in a PrepareContext block, with the citation that Expand verifies.
 */
export interface ContextEntry__Output {
  'citation': (_powercontext_memory_v1_Citation__Output | null);
  'kind': (string);
  'text': (string);
  'section': (_powercontext_memory_v1_ContextSection__Output);
}
