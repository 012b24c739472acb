// Original file: powercontext/memory/v1/memory_service.proto


export interface GetCapabilitiesRequest {
}

export interface GetCapabilitiesRequest__Output {
}
