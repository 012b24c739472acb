// @powercontext/memory-client: a typed client for PowerContext Memory.
export {
  DEFAULT_UPDATE_ATTEMPTS,
  MemoryClient,
  newRequestId,
  WRITE_ATTEMPTS,
  type MemorySelector,
  type UpdateOptions,
} from './client';
export type { Change, WriteRequest, WriteResponse } from './write-request';
export type { CallOptions } from './call-options';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DEADLINE_MS,
  DEFAULT_ENDPOINT,
  ENV,
  MAX_MESSAGE_BYTES,
  type ClientOptions,
  type ResolvedConfig,
  type TlsOptions,
  type TokenSource,
} from './config';
export { DEFAULT_BACKOFF, type BackoffPolicy } from './backoff';
export {
  DEFAULT_RECONNECT_FOR_MS,
  type FollowOptions,
  type FollowResume,
  type FollowRetry,
} from './follow';
export {
  Aborted,
  AlreadyExists,
  CapabilityNotSupported,
  CitationMismatch,
  DataLoss,
  DeadlineExceeded,
  ERROR_DOMAIN,
  FailedPrecondition,
  Internal,
  InvalidArgument,
  NotFound,
  PermissionDenied,
  PowerContextError,
  RevisionConflict,
  Unauthenticated,
  Unavailable,
  type StatusName,
} from './errors';
export type { ErrorInfo, FieldViolation, PreconditionViolation } from './status-details';
export * from './types';
