// Promise-returning unary calls with a deadline, cancellation, error conversion and, for
// read-only methods only, bounded retries on transient failures.
import type {
  CallOptions as GrpcCallOptions,
  ClientUnaryCall,
  Metadata,
  ServiceError,
} from '@grpc/grpc-js';

import { abortReason, pause } from './abort';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { fromGrpcError, isTransient } from './errors';

/** A grpc-js unary method in its (request, metadata, options, callback) form. */
export type UnaryMethod<Request, Response> = (
  request: Request,
  metadata: Metadata,
  options: GrpcCallOptions,
  callback: (error: ServiceError | null, response?: Response) => void,
) => ClientUnaryCall;

export interface UnaryInvocation {
  /** Absolute time by which every attempt must be over. */
  readonly deadline: Date;
  readonly metadata: Metadata;
  readonly signal: AbortSignal | undefined;
}

/** One attempt: resolves with the response or rejects with a PowerContextError. */
export function callUnary<Request, Response>(
  method: UnaryMethod<Request, Response>,
  request: Request,
  invocation: UnaryInvocation,
): Promise<Response> {
  const { signal } = invocation;
  if (signal?.aborted) {
    return Promise.reject(abortReason(signal));
  }
  return new Promise<Response>((resolve, reject) => {
    const onAbort = (): void => {
      call.cancel();
    };
    const call = method(
      request,
      invocation.metadata,
      { deadline: invocation.deadline },
      (error, response) => {
        signal?.removeEventListener('abort', onAbort);
        if (signal?.aborted) {
          reject(abortReason(signal));
        } else if (error) {
          reject(fromGrpcError(error));
        } else {
          resolve(response as Response);
        }
      },
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface ReadRetryPolicy {
  readonly retries: number;
  readonly backoff: BackoffPolicy;
}

/**
 * Repeats a read while it fails transiently (UNAVAILABLE, or CANCELLED by a server shutting
 * down), at most `retries` more times and only while a backoff still fits before the deadline.
 * Only for calls without side effects: writes must never be repeated without the caller
 * deciding to (the first may have committed).
 */
export async function retryRead<Response>(
  attempt: () => Promise<Response>,
  policy: ReadRetryPolicy,
  invocation: UnaryInvocation,
): Promise<Response> {
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      const delayMs = backoffDelay(retry, policy.backoff);
      const fits = Date.now() + delayMs < invocation.deadline.getTime();
      if (invocation.signal?.aborted || !isTransient(error) || retry > policy.retries || !fits) {
        throw error;
      }
      await pause(delayMs, invocation.signal);
    }
  }
}
