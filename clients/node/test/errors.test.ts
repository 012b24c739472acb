// Status details -> typed errors, without a server: every family, and malformed input.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Metadata, status } from '@grpc/grpc-js';

import {
  Aborted,
  AlreadyExists,
  CapabilityNotSupported,
  CitationMismatch,
  DataLoss,
  DeadlineExceeded,
  FailedPrecondition,
  Internal,
  InvalidArgument,
  NotFound,
  PermissionDenied,
  PowerContextError,
  RevisionConflict,
  Unauthenticated,
  Unavailable,
} from '../src';
import { errorFromStatus, fromGrpcError } from '../src/errors';
import {
  decodeStatusDetails,
  encodeStatusDetails,
  STATUS_DETAILS_KEY,
  type ErrorInfo,
} from '../src/status-details';

const DOMAIN = 'powercontext.memory';

/** A grpc-js ServiceError as the server would produce it, trailer included. */
function serviceError(code: status, details: string, rich?: Uint8Array): Error {
  const metadata = new Metadata();
  if (rich) metadata.set(STATUS_DETAILS_KEY, Buffer.from(rich));
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata,
  });
}

function info(reason: string, metadata: Record<string, string> = {}): ErrorInfo {
  return { reason, domain: DOMAIN, metadata };
}

function convert(code: status, reason: string, metadata: Record<string, string> = {}): Error {
  const rich = encodeStatusDetails({ code, message: 'm', errorInfo: info(reason, metadata) });
  return fromGrpcError(serviceError(code, 'm', rich));
}

describe('status details', () => {
  it('round-trips ErrorInfo, BadRequest and PreconditionFailure', () => {
    const bytes = encodeStatusDetails({
      code: status.INVALID_ARGUMENT,
      message: 'query: is required',
      errorInfo: info('EMPTY_QUERY', { field: 'query' }),
      fieldViolations: [{ field: 'query', description: 'is required' }],
      preconditionViolations: [{ type: 'T', subject: 's', description: 'd' }],
    });

    assert.deepEqual(decodeStatusDetails(bytes), {
      code: status.INVALID_ARGUMENT,
      message: 'query: is required',
      errorInfo: info('EMPTY_QUERY', { field: 'query' }),
      fieldViolations: [{ field: 'query', description: 'is required' }],
      preconditionViolations: [{ type: 'T', subject: 's', description: 'd' }],
    });
  });

  it('returns undefined for bytes that are not a Status', () => {
    assert.equal(decodeStatusDetails(Uint8Array.from([0xff, 0xff, 0xff])), undefined);
  });
});

describe('typed errors', () => {
  it('maps each status family to its class', () => {
    const cases: Array<[status, string, new (...args: never[]) => PowerContextError]> = [
      [status.INVALID_ARGUMENT, 'EMPTY_TEXT', InvalidArgument],
      [status.NOT_FOUND, 'MEMORY_NOT_FOUND', NotFound],
      [status.NOT_FOUND, 'CITATION_MISMATCH', CitationMismatch],
      [status.ABORTED, 'REVISION_CONFLICT', RevisionConflict],
      [status.ABORTED, '', Aborted],
      [status.ABORTED, 'ABORTED', Aborted],
      [status.ABORTED, 'ENTRY_VERSION_STALE', Aborted],
      [status.ABORTED, 'PREVIEW_STALE', Aborted],
      [status.FAILED_PRECONDITION, 'ENTRY_VERSION_STALE', FailedPrecondition],
      [status.FAILED_PRECONDITION, 'CAPABILITY_NOT_SUPPORTED', CapabilityNotSupported],
      [status.DATA_LOSS, 'STORED_HASH_MISMATCH', DataLoss],
      [status.UNAVAILABLE, 'DATABASE_UNAVAILABLE', Unavailable],
      [status.PERMISSION_DENIED, 'FORBIDDEN', PermissionDenied],
      [status.UNAUTHENTICATED, 'TOKEN_MISSING', Unauthenticated],
      [status.DEADLINE_EXCEEDED, '', DeadlineExceeded],
      [status.ALREADY_EXISTS, 'REQUEST_ID_REUSED', AlreadyExists],
      [status.INTERNAL, 'INTERNAL', Internal],
      [status.RESOURCE_EXHAUSTED, '', PowerContextError],
    ];
    for (const [code, reason, expected] of cases) {
      const error = convert(code, reason);
      assert.equal(error.constructor, expected, `${status[code]} ${reason}`);
      assert.ok(error instanceof PowerContextError);
      assert.equal(error.reason, reason);
      assert.equal(error.code, status[code]);
      assert.equal(error.grpcCode, code);
      assert.equal(error.domain, DOMAIN);
      assert.equal(error.name, expected.name);
    }
  });

  it('gives RevisionConflict its revisions as numbers', () => {
    const error = convert(status.ABORTED, 'REVISION_CONFLICT', {
      artifactId: 'mem_art_1',
      expectedRevision: '3',
      headRevision: '5',
    });
    assert.ok(error instanceof RevisionConflict);
    assert.ok(error instanceof Aborted, 'a head conflict is one kind of ABORTED');
    assert.equal(error.artifactId, 'mem_art_1');
    assert.equal(error.expectedRevision, 3);
    assert.equal(error.headRevision, 5);
    assert.equal(error.message, 'ABORTED (REVISION_CONFLICT): m');
  });

  it('gives Unavailable the revision to resume after, when the server names one', () => {
    const shutdown = convert(status.UNAVAILABLE, 'SHUTTING_DOWN', { resumeSinceRevision: '7' });
    assert.ok(shutdown instanceof Unavailable);
    assert.equal(shutdown.resumeSinceRevision, 7);
    const dropped = fromGrpcError(serviceError(status.UNAVAILABLE, 'Connection dropped'));
    assert.ok(dropped instanceof Unavailable);
    assert.equal(dropped.resumeSinceRevision, undefined);
    assert.equal(dropped.reason, '');
  });

  it('names the capability of CapabilityNotSupported', () => {
    const error = convert(status.FAILED_PRECONDITION, 'CAPABILITY_NOT_SUPPORTED', {
      capability: 'vector',
    });
    assert.ok(error instanceof CapabilityNotSupported);
    assert.ok(error instanceof FailedPrecondition);
    assert.equal(error.capability, 'vector');
  });

  it('refines by reason only within the code of its family and domain', () => {
    assert.equal(
      convert(status.INVALID_ARGUMENT, 'CITATION_MISMATCH').constructor,
      InvalidArgument,
    );
    const foreign = errorFromStatus(status.NOT_FOUND, 'x', {
      code: status.NOT_FOUND,
      message: 'x',
      errorInfo: { reason: 'CITATION_MISMATCH', domain: 'elsewhere', metadata: {} },
      fieldViolations: [],
      preconditionViolations: [],
    });
    assert.equal(foreign.constructor, NotFound);
  });

  it('keeps the status code when the trailer is malformed', () => {
    const error = fromGrpcError(
      serviceError(status.NOT_FOUND, 'gone', Uint8Array.from([0xff, 0xff])),
    );
    assert.ok(error instanceof NotFound);
    assert.equal(error.reason, '');
    assert.equal(error.details, 'gone');
  });

  it('passes errors that are not gRPC statuses through', () => {
    const local = new TypeError('bad');
    assert.equal(fromGrpcError(local), local);
  });
});
