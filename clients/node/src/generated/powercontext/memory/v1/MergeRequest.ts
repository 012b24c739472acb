// Original file: powercontext/memory/v1/memory_service.proto

import type { ArtifactRef as _powercontext_memory_v1_ArtifactRef, ArtifactRef__Output as _powercontext_memory_v1_ArtifactRef__Output } from '../../../powercontext/memory/v1/ArtifactRef';
import type { EntryRef as _powercontext_memory_v1_EntryRef, EntryRef__Output as _powercontext_memory_v1_EntryRef__Output } from '../../../powercontext/memory/v1/EntryRef';
import type { SourceRef as _powercontext_memory_v1_SourceRef, SourceRef__Output as _powercontext_memory_v1_SourceRef__Output } from '../../../powercontext/memory/v1/SourceRef';

export interface MergeRequest {
  /**
   * The current head revision.
   */
  'memory'?: (_powercontext_memory_v1_ArtifactRef | null);
  /**
   * Two or more distinct active entries, each at its current version.
   */
  'inputs'?: (_powercontext_memory_v1_EntryRef)[];
  /**
   * The merged entry: kind and text as for EntryInput; description derived when unset.
   */
  'kind'?: (string);
  'text'?: (string);
  'description'?: (string);
  /**
   * Empty: the union of the inputs' tags.
   */
  'tags'?: (string)[];
  /**
   * Operation evidence besides the inputs' own (which the result always keeps).
   */
  'sources'?: (_powercontext_memory_v1_SourceRef)[];
  'artifacts'?: (_powercontext_memory_v1_ArtifactRef)[];
  'reason'?: (string);
  '_description'?: "description";
  '_reason'?: "reason";
}

export interface MergeRequest__Output {
  /**
   * The current head revision.
   */
  'memory': (_powercontext_memory_v1_ArtifactRef__Output | null);
  /**
   * Two or more distinct active entries, each at its current version.
   */
  'inputs': (_powercontext_memory_v1_EntryRef__Output)[];
  /**
   * The merged entry: kind and text as for EntryInput; description derived when unset.
   */
  'kind': (string);
  'text': (string);
  'description'?: (string);
  /**
   * Empty: the union of the inputs' tags.
   */
  'tags': (string)[];
  /**
   * Operation evidence besides the inputs' own (which the result always keeps).
   */
  'sources': (_powercontext_memory_v1_SourceRef__Output)[];
  'artifacts': (_powercontext_memory_v1_ArtifactRef__Output)[];
  'reason'?: (string);
  '_description'?: "description";
  '_reason'?: "reason";
}
