// Original file: powercontext/memory/v1/memory_service.proto

import type { Long } from '@grpc/proto-loader';

export interface GetSourceRequest {
  'sourceId'?: (string);
  /**
   * Where in content to start (bytes); 0 from the start. Past the end: INVALID_ARGUMENT.
   */
  'contentOffset'?: (number | string | Long);
  /**
   * At most this many bytes of content; 0 means as many as fit one answer a default client
   * receives (3 MiB). Larger: INVALID_ARGUMENT.
   */
  'contentLimit'?: (number);
}

export interface GetSourceRequest__Output {
  'sourceId': (string);
  /**
   * Where in content to start (bytes); 0 from the start. Past the end: INVALID_ARGUMENT.
   */
  'contentOffset': (number);
  /**
   * At most this many bytes of content; 0 means as many as fit one answer a default client
   * receives (3 MiB). Larger: INVALID_ARGUMENT.
   */
  'contentLimit': (number);
}
