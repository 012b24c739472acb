// Promise-returning unary calls with a deadline, cancellation, error conversion and bounded
// retries: reads on transient failures, writes (which carry a request id) when their answer
// was lost, and any call that reached no server for the connect window (connect.ts).
import type {
  CallOptions as GrpcCallOptions,
  ClientUnaryCall,
  Metadata,
  ServiceError,
} from '@grpc/grpc-js';

import { abortReason, pause } from './abort';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { ConnectWindow, type ConnectPolicy } from './connect';
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
  readonly connect: ConnectPolicy;
}

/**
 * Repeats a read while it fails transiently (UNAVAILABLE, or CANCELLED by a server shutting
 * down), at most `retries` more times and only while a backoff still fits before the deadline;
 * one that reached no server, for the connect window. Only for calls without side effects:
 * writes must never be repeated without the caller deciding to (the first may have committed).
 */
export async function retryRead<Response>(
  attempt: () => Promise<Response>,
  policy: ReadRetryPolicy,
  invocation: UnaryInvocation,
): Promise<Response> {
  const window = new ConnectWindow(policy.connect, invocation.deadline.getTime());
  let answered = 0;
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (invocation.signal?.aborted) {
        throw error;
      }
      const delayMs = backoffDelay(retry, policy.backoff);
      const unreached = window.pause(error, delayMs);
      if (unreached === undefined) {
        answered += 1;
        const fits = Date.now() + delayMs < invocation.deadline.getTime();
        if (!isTransient(error) || answered > policy.retries || !fits) {
          throw error;
        }
      }
      await pause(unreached ?? delayMs, invocation.signal);
    }
  }
}

export interface WriteRetryPolicy {
  /** Sends a server may have seen, in all, the first included. */
  readonly attempts: number;
  readonly backoff: BackoffPolicy;
  readonly connect: ConnectPolicy;
}

/**
 * Sends a write again while its answer is lost — UNAVAILABLE (the connection or the server
 * went away) or DEADLINE_EXCEEDED — since it may have committed: at most `attempts` sends in
 * all, after a jittered backoff. `attempt` makes a fresh deadline each time (the lost one
 * used it up). Only for requests the server answers once: a write with its request id (the
 * server replays the first outcome) or a content-addressed PutSource. Any other error, and
 * an aborted signal, end it at once. A send that reached no server is sent again for the
 * connect window, whatever the request (nothing was sent), and is not counted.
 */
export async function retryWrite<Response>(
  attempt: () => Promise<Response>,
  policy: WriteRetryPolicy,
  signal: AbortSignal | undefined,
): Promise<Response> {
  const window = new ConnectWindow(policy.connect);
  let sent = 0;
  for (let retry = 1; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (signal?.aborted) {
        throw error;
      }
      const delayMs = backoffDelay(retry, policy.backoff);
      const unreached = window.pause(error, delayMs);
      if (unreached === undefined) {
        sent += 1;
        const lost = error instanceof Unavailable || error instanceof DeadlineExceeded;
        if (!lost || sent >= policy.attempts) {
          throw error;
        }
      }
      await pause(unreached ?? delayMs, signal);
    }
  }
}
