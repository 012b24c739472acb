// Original file: powercontext/memory/v1/memory_service.proto


export interface PutSourceRequest {
  'kind'?: (string);
  'uri'?: (string);
  'mediaType'?: (string);
  'content'?: (Buffer | Uint8Array | string);
  'metadata'?: ({[key: string]: string});
}

export interface PutSourceRequest__Output {
  'kind': (string);
  'uri': (string);
  'mediaType': (string);
  'content': (Buffer);
  'metadata': ({[key: string]: string});
}
