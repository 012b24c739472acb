// Original file: powercontext/memory/v1/memory_service.proto

import type { ContextEntry as _powercontext_memory_v1_ContextEntry, ContextEntry__Output as _powercontext_memory_v1_ContextEntry__Output } from '../../../powercontext/memory/v1/ContextEntry';
import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';

export interface PrepareContextResponse {
  /**
   * The block for the agent: labelled as data, one line per entry with its citation; never
   * longer than budget_bytes, never cut inside a line. Empty when there is nothing to say.
   */
  'block'?: (string);
  /**
   * The entries in the block, in block order.
   */
  'entries'?: (_powercontext_memory_v1_ContextEntry)[];
  /**
   * The head revisions read.
   */
  'memories'?: (_powercontext_memory_v1_ArtifactRef)[];
  /**
   * Active entries that qualified but did not fit the budget.
   */
  'omittedEntries'?: (number);
}

export interface PrepareContextResponse__Output {
  /**
   * The block for the agent: labelled as data, one line per entry with its citation; never
   * longer than budget_bytes, never cut inside a line. Empty when there is nothing to say.
   */
  'block': (string);
  /**
   * The entries in the block, in block order.
   */
  'entries': (_powercontext_memory_v1_ContextEntry__Output)[];
  /**
   * The head revisions read.
   */
  'memories': (_powercontext_memory_v1_ArtifactRef__Output)[];
  /**
   * Active entries that qualified but did not fit the budget.
   */
  'omittedEntries': (number);
}
