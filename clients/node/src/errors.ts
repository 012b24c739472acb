// One error class for every failed call, with a subclass per family of the service's errors
// (the same families as the Python client), so callers can branch with `instanceof` and read
// the ErrorInfo reason and metadata without touching gRPC:
//
//   PowerContextError            code, grpcCode, reason, domain, metadata, fieldViolations, ...
//   ├── InvalidArgument          bad input; fieldViolations name the fields
//   ├── NotFound                 unknown memory, revision, source
//   │   └── CitationMismatch
//   ├── Aborted                  ABORTED: stale input version (Merge), stale preview (Restore)
//   │   └── RevisionConflict     ABORTED: the base is not the head; headRevision
//   ├── FailedPrecondition       valid input, wrong state
//   │   └── CapabilityNotSupported   capability
//   ├── DataLoss
//   ├── Unavailable              retry later; resumeSinceRevision on a shut-down stream
//   ├── DeadlineExceeded
//   ├── AlreadyExists            REQUEST_ID_REUSED: a write's request id named another request
//   ├── Internal                 INTERNAL / UNKNOWN
//   ├── PermissionDenied
//   └── Unauthenticated
//
// A call that reaches no server at all (connection refused, name not resolved) is an
// Unavailable whose details name the endpoint and the cause, e.g.
// `cannot reach 127.0.0.1:50051: connection refused` (connectFailure, unreachable).
//
// The status code picks the family; for NOT_FOUND, ABORTED and FAILED_PRECONDITION the
// ErrorInfo reason may pick the subclass. Other codes (CANCELLED, RESOURCE_EXHAUSTED, ...) stay the base class.
import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

import {
  decodeStatusDetails,
  STATUS_DETAILS_KEY,
  type FieldViolation,
  type PreconditionViolation,
  type StatusDetails,
} from './status-details';

export const ERROR_DOMAIN = 'powercontext.memory';

/** A gRPC status code by name, e.g. `'ABORTED'`. */
export type StatusName = keyof typeof GrpcStatus;

export interface PowerContextErrorInit {
  readonly grpcCode: number;
  /** The server's message (the status details), without the code prefix gRPC adds. */
  readonly details: string;
  readonly reason?: string;
  readonly domain?: string;
  readonly metadata?: Readonly<Record<string, string>>;
  readonly fieldViolations?: readonly FieldViolation[];
  readonly preconditionViolations?: readonly PreconditionViolation[];
  readonly cause?: unknown;
}

export class PowerContextError extends Error {
  /** The gRPC status code by name, e.g. `'ABORTED'`. */
  readonly code: StatusName;
  /** The numeric gRPC status code, e.g. 10. */
  readonly grpcCode: number;
  /** ErrorInfo.reason (UPPER_SNAKE, stable); '' when the failure carried no ErrorInfo. */
  readonly reason: string;
  /** ErrorInfo.domain: 'powercontext.memory' for the service's own errors. */
  readonly domain: string;
  /** ErrorInfo.metadata (lowerCamel keys, string values). */
  readonly metadata: Readonly<Record<string, string>>;
  /** google.rpc.BadRequest field violations (INVALID_ARGUMENT). */
  readonly fieldViolations: readonly FieldViolation[];
  /** google.rpc.PreconditionFailure violations (some FAILED_PRECONDITION). */
  readonly preconditionViolations: readonly PreconditionViolation[];
  /** The server's message without gRPC's "<code> <NAME>: " prefix. */
  readonly details: string;

  constructor(init: PowerContextErrorInit) {
    const code = statusName(init.grpcCode);
    const reason = init.reason ?? '';
    super(`${code}${reason ? ` (${reason})` : ''}: ${init.details}`, { cause: init.cause });
    this.name = new.target.name;
    this.code = code;
    this.grpcCode = init.grpcCode;
    this.reason = reason;
    this.domain = init.domain ?? '';
    this.metadata = Object.freeze({ ...init.metadata });
    this.fieldViolations = Object.freeze([...(init.fieldViolations ?? [])]);
    this.preconditionViolations = Object.freeze([...(init.preconditionViolations ?? [])]);
    this.details = init.details;
  }
}

/** INVALID_ARGUMENT: the request is malformed; `fieldViolations` names the fields. */
export class InvalidArgument extends PowerContextError {}

/** NOT_FOUND: unknown memory, revision or source (reason says which). */
export class NotFound extends PowerContextError {}

/** NOT_FOUND with reason CITATION_MISMATCH: a citation names an entry version the memory lacks. */
export class CitationMismatch extends NotFound {}

/**
 * ABORTED: what the write was based on changed; nothing changed. The reason says what:
 * ENTRY_VERSION_STALE (a Merge input is no longer at the version given), PREVIEW_STALE (the
 * entries a restore preview read changed: preview again). A stale head is a RevisionConflict.
 */
export class Aborted extends PowerContextError {}

/**
 * ABORTED with reason REVISION_CONFLICT: the write was based on a revision that is no longer
 * the head; nothing changed.
 */
export class RevisionConflict extends Aborted {
  readonly artifactId: string;
  /** The revision the write named as its base. */
  readonly expectedRevision: number;
  /** The memory's head when the write was refused: re-read it and re-apply the operation. */
  readonly headRevision: number;

  constructor(init: PowerContextErrorInit) {
    super(init);
    this.artifactId = this.metadata.artifactId ?? '';
    this.expectedRevision = revisionOf(this.metadata.expectedRevision) ?? 0;
    this.headRevision = revisionOf(this.metadata.headRevision) ?? 0;
  }
}

/** FAILED_PRECONDITION: valid input, wrong state (stale entry version, not at head, ...). */
export class FailedPrecondition extends PowerContextError {}

/** FAILED_PRECONDITION with reason CAPABILITY_NOT_SUPPORTED: this deployment cannot do it. */
export class CapabilityNotSupported extends FailedPrecondition {
  readonly capability: string;

  constructor(init: PowerContextErrorInit) {
    super(init);
    this.capability = this.metadata.capability ?? '';
  }
}

/** DATA_LOSS: stored bytes no longer match their hash. */
export class DataLoss extends PowerContextError {}

/**
 * UNAVAILABLE: the server is shutting down (SHUTTING_DOWN), its database is unreachable
 * (DATABASE_UNAVAILABLE), or there is no connection (no reason). Reads may be retried;
 * follow() resumes by itself.
 */
export class Unavailable extends PowerContextError {
  /** For a follow stream ended by shutdown: the last revision the server sent. */
  readonly resumeSinceRevision: number | undefined;

  constructor(init: PowerContextErrorInit) {
    super(init);
    this.resumeSinceRevision = revisionOf(this.metadata.resumeSinceRevision);
  }
}

/**
 * DEADLINE_EXCEEDED: the call's deadline passed. A write is sent again with its request id
 * (WRITE_ATTEMPTS sends at most); thrown after the last, its outcome is unknown: send it again
 * later with the same request id, or re-read the head.
 */
export class DeadlineExceeded extends PowerContextError {}

/**
 * ALREADY_EXISTS: REQUEST_ID_REUSED, a write's request id was already used for a different
 * request (metadata requestId); a new request needs a new id.
 */
export class AlreadyExists extends PowerContextError {}

/** INTERNAL or UNKNOWN: a server bug, or a broken stream contract. */
export class Internal extends PowerContextError {}

/** PERMISSION_DENIED: the caller is known but may not do this. */
export class PermissionDenied extends PowerContextError {}

/** UNAUTHENTICATED: missing or invalid credentials (bearer token). */
export class Unauthenticated extends PowerContextError {}

type ErrorClass = new (init: PowerContextErrorInit) => PowerContextError;

const BY_CODE: ReadonlyMap<number, ErrorClass> = new Map<number, ErrorClass>([
  [GrpcStatus.INVALID_ARGUMENT, InvalidArgument],
  [GrpcStatus.NOT_FOUND, NotFound],
  [GrpcStatus.ABORTED, Aborted],
  [GrpcStatus.FAILED_PRECONDITION, FailedPrecondition],
  [GrpcStatus.DATA_LOSS, DataLoss],
  [GrpcStatus.UNAVAILABLE, Unavailable],
  [GrpcStatus.DEADLINE_EXCEEDED, DeadlineExceeded],
  [GrpcStatus.ALREADY_EXISTS, AlreadyExists],
  [GrpcStatus.INTERNAL, Internal],
  [GrpcStatus.UNKNOWN, Internal],
  [GrpcStatus.PERMISSION_DENIED, PermissionDenied],
  [GrpcStatus.UNAUTHENTICATED, Unauthenticated],
]);

// Reasons with a class of their own, valid only under the code of their family.
const BY_REASON: Readonly<Record<string, { grpcCode: number; type: ErrorClass }>> = {
  CITATION_MISMATCH: { grpcCode: GrpcStatus.NOT_FOUND, type: CitationMismatch },
  // Only a lost head CAS is a RevisionConflict: update() re-applies the change after it alone.
  REVISION_CONFLICT: { grpcCode: GrpcStatus.ABORTED, type: RevisionConflict },
  CAPABILITY_NOT_SUPPORTED: {
    grpcCode: GrpcStatus.FAILED_PRECONDITION,
    type: CapabilityNotSupported,
  },
};

/**
 * Whether a failed call may be sent again, if it has no side effects: the server is away
 * (UNAVAILABLE), or it cancelled the call itself while shutting down (CANCELLED, for calls that
 * arrive during the drain). A caller's own cancellation must be excluded before asking.
 */
export function isTransient(error: unknown): error is PowerContextError {
  return (
    error instanceof Unavailable ||
    (error instanceof PowerContextError && error.grpcCode === GrpcStatus.CANCELLED)
  );
}

// grpc-js's words for a call it could not put on any connection, so no server has seen it.
const NOT_CONNECTED =
  /^No connection established\. Last error: (?:Error: )?(.*?)\.?(?: Resolution note:.*)?$/s;
const NOT_RESOLVED = /^Name resolution failed/;
// grpc-js's deadline report for a call that never got a connection (it lists the stages done).
const NEVER_PICKED = /Waiting for LB pick|waiting for (?:name resolution|metadata filters)/;
/** The cause when grpc-js does not know it: connectFailure's least specific answer. */
export const NO_CONNECTION = 'no connection established';
const ERRNO_CAUSES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/**
 * Why grpc-js could not send the call to any server (e.g. 'connection refused'), which makes it
 * safe to send again whatever it is; undefined when a server may have seen it.
 */
export function connectFailure(error: unknown): string | undefined {
  if (!(error instanceof Unavailable) || error.reason !== '') {
    return undefined; // a server's own UNAVAILABLE (SHUTTING_DOWN, DATABASE_UNAVAILABLE)
  }
  const connecting = NOT_CONNECTED.exec(error.details);
  if (connecting) {
    const last = connecting[1] ?? '';
    if (last === '' || last === 'null') {
      return NO_CONNECTION; // a channel sharing a subchannel that failed before it looked
    }
    const errno = /\bE[A-Z]+\b/.exec(last)?.[0];
    return (errno && ERRNO_CAUSES[errno]) || last.charAt(0).toLowerCase() + last.slice(1);
  }
  return NOT_RESOLVED.test(error.details) ? 'name resolution failed' : undefined;
}

/**
 * Whether the call's deadline ran out before grpc-js put it on any connection, so no server has
 * seen it (a retry started too close to its deadline, or a connection attempt still pending).
 */
export function expiredUnsent(error: unknown): boolean {
  return error instanceof DeadlineExceeded && NEVER_PICKED.test(error.details);
}

/** The error of a call that reached no server: UNAVAILABLE, naming where and why. */
export function unreachable(endpoint: string, cause: string, original?: unknown): Unavailable {
  return new Unavailable({
    grpcCode: GrpcStatus.UNAVAILABLE,
    details: `cannot reach ${endpoint}: ${cause}`,
    cause: original,
  });
}

/** Builds the matching subclass from a status code and the decoded rich status (if any). */
export function errorFromStatus(
  grpcCode: number,
  details: string,
  rich: StatusDetails | undefined,
  cause?: unknown,
): PowerContextError {
  const info = rich?.errorInfo;
  const refined = info?.domain === ERROR_DOMAIN ? BY_REASON[info.reason] : undefined;
  const ErrorType =
    refined?.grpcCode === grpcCode ? refined.type : (BY_CODE.get(grpcCode) ?? PowerContextError);
  return new ErrorType({
    grpcCode,
    details,
    reason: info?.reason,
    domain: info?.domain,
    metadata: info?.metadata,
    fieldViolations: rich?.fieldViolations,
    preconditionViolations: rich?.preconditionViolations,
    cause,
  });
}

/**
 * What a grpc-js call failed with, as the error to throw: a gRPC status becomes the matching
 * PowerContextError; any other Error (a local failure) passes unchanged.
 */
export function fromGrpcError(error: unknown): Error {
  if (error instanceof PowerContextError) {
    return error;
  }
  if (isServiceError(error)) {
    return errorFromStatus(error.code, error.details, richStatusOf(error.metadata), error);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function richStatusOf(metadata: Metadata | undefined): StatusDetails | undefined {
  const value = metadata?.get(STATUS_DETAILS_KEY)[0];
  return value instanceof Uint8Array ? decodeStatusDetails(value) : undefined;
}

function isServiceError(error: unknown): error is ServiceError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ServiceError>).code === 'number' &&
    typeof (error as Partial<ServiceError>).details === 'string'
  );
}

function statusName(code: number): StatusName {
  const name = GrpcStatus[code];
  return (name ?? 'UNKNOWN') as StatusName;
}

function revisionOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) {
    return undefined;
  }
  return Number(value);
}
