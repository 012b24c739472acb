// Promise-returning unary calls with a deadline, cancellation, error conversion and bounded
// retries: reads on transient failures, writes (which carry a request id) when their answer
// was lost.
import type {
  CallOptions as GrpcCallOptions,
  ClientUnaryCall,
  Metadata,
  ServiceError,
} from '@grpc/grpc-js';

import { abortReason, pause } from './abort';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { DeadlineExceeded, fromGrpcError, isTransient, Unavailable } from './errors';

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

export interface WriteRetryPolicy {
  /** Sends in all, the first included. */
  readonly attempts: number;
  readonly backoff: BackoffPolicy;
}

/**
 * Sends a write again while its answer is lost — UNAVAILABLE (the connection or the server
 * went away) or DEADLINE_EXCEEDED — since it may have committed: at most `attempts` sends in
 * all, after a jittered backoff. `attempt` makes a fresh deadline each time (the lost one
 * used it up). Only for requests the server answers once: a write with its request id (the
 * server replays the first outcome) or a content-addressed PutSource. Any other error, and
 * an aborted signal, end it at once.
 */
export async function retryWrite<Response>(
  attempt: () => Promise<Response>,
  policy: WriteRetryPolicy,
  signal: AbortSignal | undefined,
): Promise<Response> {
  for (let sent = 1; ; sent++) {
    try {
      return await attempt();
    } catch (error) {
      const lost = error instanceof Unavailable || error instanceof DeadlineExceeded;
      if (signal?.aborted || !lost || sent >= policy.attempts) {
        throw error;
      }
    }
    await pause(backoffDelay(sent, policy.backoff), signal);
  }
}
