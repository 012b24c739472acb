// Original file: powercontext/memory/v1/memory_service.proto

import type { Capabilities as _powercontext_memory_v1_Capabilities, Capabilities__Output as _powercontext_memory_v1_Capabilities__Output } from '../../../powercontext/memory/v1/Capabilities';

export interface GetCapabilitiesResponse {
  'capabilities'?: (_powercontext_memory_v1_Capabilities | null);
}

export interface GetCapabilitiesResponse__Output {
  'capabilities': (_powercontext_memory_v1_Capabilities__Output | null);
}
