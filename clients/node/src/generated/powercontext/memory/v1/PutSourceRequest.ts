// Original file: powercontext/memory/v1/memory_service.proto


export interface PutSourceRequest {
  'kind'?: (string);
  'uri'?: (string);
  'mediaType'?: (string);
  'content'?: (Buffer | Uint8Array | string);
  'metadata'?: ({[key: string]: string});
  /**
   * Records the source for this memory (its artifact id, e.g. "mem_art_<32 hex>"), so that
   * tokens limited to that memory may read it before any revision cites it; the memory must
   * exist (NOT_FOUND, MEMORY_NOT_FOUND). Optional for a token without a memory list; required
   * from a token with one (PERMISSION_DENIED, SOURCE_MEMORY_REQUIRED), and one of its memories.
   * Not part of the record: the same content gets the same source_id whatever memory is named.
   */
  'memoryId'?: (string);
}

export interface PutSourceRequest__Output {
  'kind': (string);
  'uri': (string);
  'mediaType': (string);
  'content': (Buffer);
  'metadata': ({[key: string]: string});
  /**
   * Records the source for this memory (its artifact id, e.g. "mem_art_<32 hex>"), so that
   * tokens limited to that memory may read it before any revision cites it; the memory must
   * exist (NOT_FOUND, MEMORY_NOT_FOUND). Optional for a token without a memory list; required
   * from a token with one (PERMISSION_DENIED, SOURCE_MEMORY_REQUIRED), and one of its memories.
   * Not part of the record: the same content gets the same source_id whatever memory is named.
   */
  'memoryId': (string);
}
