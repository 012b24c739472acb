// Original file: powercontext/memory/v1/memory_service.proto

import type { RevisionChanges as _powercontext_memory_v1_RevisionChanges, RevisionChanges__Output as _powercontext_memory_v1_RevisionChanges__Output } from '../../../powercontext/memory/v1/RevisionChanges';
import type { ChangesProgress as _powercontext_memory_v1_ChangesProgress, ChangesProgress__Output as _powercontext_memory_v1_ChangesProgress__Output } from '../../../powercontext/memory/v1/ChangesProgress';

export interface ChangesResponse {
  'revision'?: (_powercontext_memory_v1_RevisionChanges | null);
  'progress'?: (_powercontext_memory_v1_ChangesProgress | null);
  'event'?: "revision"|"progress";
}

export interface ChangesResponse__Output {
  'revision'?: (_powercontext_memory_v1_RevisionChanges__Output | null);
  'progress'?: (_powercontext_memory_v1_ChangesProgress__Output | null);
  'event'?: "revision"|"progress";
}
