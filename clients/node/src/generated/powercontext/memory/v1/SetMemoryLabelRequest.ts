// Original file: powercontext/memory/v1/memory_service.proto

import type { Long } from '@grpc/proto-loader';

export interface SetMemoryLabelRequest {
  /**
   * The memory's artifact id; the memory must exist (NOT_FOUND, MEMORY_NOT_FOUND).
   */
  'memoryId'?: (string);
  /**
   * One line, at most 200 characters after NFC and trimming; empty clears the label.
   */
  'label'?: (string);
  /**
   * The label version this replaces: 0 when none was set. Stale: ABORTED (LABEL_CONFLICT).
   */
  'labelVersion'?: (number | string | Long);
}

export interface SetMemoryLabelRequest__Output {
  /**
   * The memory's artifact id; the memory must exist (NOT_FOUND, MEMORY_NOT_FOUND).
   */
  'memoryId': (string);
  /**
   * One line, at most 200 characters after NFC and trimming; empty clears the label.
   */
  'label': (string);
  /**
   * The label version this replaces: 0 when none was set. Stale: ABORTED (LABEL_CONFLICT).
   */
  'labelVersion': (number);
}
