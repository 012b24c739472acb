// Original file: powercontext/memory/v1/memory_service.proto


export interface ListMemoriesRequest {
  /**
   * 1..100; 0 means 50.
   */
  'pageSize'?: (number);
  /**
   * From a previous response; bound to the caller.
   */
  'pageToken'?: (string);
}

export interface ListMemoriesRequest__Output {
  /**
   * 1..100; 0 means 50.
   */
  'pageSize': (number);
  /**
   * From a previous response; bound to the caller.
   */
  'pageToken': (string);
}
