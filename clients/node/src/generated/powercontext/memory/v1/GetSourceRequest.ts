// Original file: powercontext/memory/v1/memory_service.proto


export interface GetSourceRequest {
  'sourceId'?: (string);
}

export interface GetSourceRequest__Output {
  'sourceId': (string);
}
