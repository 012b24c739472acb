// Original file: powercontext/memory/v1/memory_service.proto

import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp';
import type { Long } from '@grpc/proto-loader';

export interface SetMemoryLabelResponse {
  'memoryId'?: (string);
  /**
   * The label as stored (normalized).
   */
  'label'?: (string);
  /**
   * The new version (label_version + 1), or the same when the label was already this text.
   */
  'labelVersion'?: (number | string | Long);
  'setAt'?: (_google_protobuf_Timestamp | null);
}

export interface SetMemoryLabelResponse__Output {
  'memoryId': (string);
  /**
   * The label as stored (normalized).
   */
  'label': (string);
  /**
   * The new version (label_version + 1), or the same when the label was already this text.
   */
  'labelVersion': (number);
  'setAt': (_google_protobuf_Timestamp__Output | null);
}
