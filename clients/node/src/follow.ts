// follow(): an open-ended, gap-free and duplicate-free sequence of a memory's revisions that
// survives server restarts. Each (re)connection asks for the revisions after the last one
// delivered, so what the consumer sees does not depend on where a stream broke.
import { status as GrpcStatus, type ClientReadableStream } from '@grpc/grpc-js';

import { abortReason, pause } from './abort';
import { backoffDelay, type BackoffPolicy } from './backoff';
import { ConnectWindow, type ConnectPolicy } from './connect';
import {
  connectFailure,
  fromGrpcError,
  Internal,
  isTransient,
  unreachable,
  type PowerContextError,
} from './errors';
import type { ChangesProgress, ChangesResponse, RevisionChanges } from './types';

/** How long follow() keeps reconnecting without receiving anything, by default. */
export const DEFAULT_RECONNECT_FOR_MS = 60_000;

export interface FollowOptions {
  /** Stops following: the iterator then throws the signal's reason. `break` works too. */
  readonly signal?: AbortSignal;
  /**
   * How long to keep reconnecting while every attempt fails (no message in between) before
   * the last error is thrown. Default 60 s; Infinity: forever.
   */
  readonly reconnectForMs?: number;
  /** Overrides the client's backoff between reconnections. */
  readonly backoff?: Partial<BackoffPolicy>;
  /** Called for each keep-alive the server sends while idle: all revisions up to `head` are in. */
  readonly onProgress?: (progress: ChangesProgress) => void;
  /**
   * Called before each reconnection, e.g. to log it: `attempt` 1 means the stream was just lost
   * and follow() is reconnecting.
   */
  readonly onRetry?: (retry: FollowRetry) => void;
  /**
   * Called once the stream is back after reconnections: with the first message (a revision, or
   * the keep-alive the server sends when idle) of the reopened stream.
   */
  readonly onResume?: (resume: FollowResume) => void;
}

export interface FollowResume {
  /** The stream went on after this revision (the last one delivered before it broke). */
  readonly sinceRevision: number;
  /** Reconnections it took. */
  readonly retries: number;
  /** Time from the first failure to the first message of the reopened stream. */
  readonly downMs: number;
}

export interface FollowRetry {
  /**
   * Why the stream ended or could not be opened: an Unavailable (`cannot reach ENDPOINT: ...`
   * while no server answers), or a server-side CANCELLED.
   */
  readonly error: PowerContextError;
  /** 1 for the first retry since the last message received. */
  readonly attempt: number;
  readonly delayMs: number;
  /** The stream will be reopened after this revision (the last one delivered). */
  readonly sinceRevision: number;
}

/** Opens a Changes stream with follow = true, exclusive of `sinceRevision`. */
export type OpenFollowStream = (
  sinceRevision: number,
) => Promise<ClientReadableStream<ChangesResponse>>;

/**
 * The revisions after `sinceRevision`, reopening the stream as described above. With `connect`,
 * a follow whose streams never reached a server fails like any call once the connect window
 * is over; later, a stream that cannot reach the server is reported as `cannot reach`.
 */
export async function* followRevisions(
  open: OpenFollowStream,
  sinceRevision: number,
  backoff: BackoffPolicy,
  options: FollowOptions = {},
  connect?: ConnectPolicy,
): AsyncGenerator<RevisionChanges, never, undefined> {
  const { signal } = options;
  const reconnectForMs = options.reconnectForMs ?? DEFAULT_RECONNECT_FOR_MS;
  const window = connect ? new ConnectWindow(connect) : undefined;
  let last = sinceRevision;
  let failures = 0;
  let failingSince: number | undefined;
  let reached = false; // a server has seen one of the streams
  let broken = false; // the stream broke and no message came since
  for (;;) {
    if (signal?.aborted) {
      throw abortReason(signal);
    }
    let stream: ClientReadableStream<ChangesResponse> | undefined;
    const cancel = (): void => stream?.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    let ended: PowerContextError;
    let unreached: number | undefined; // the pause of a follow that never reached a server
    try {
      stream = await open(last);
      for await (const message of stream as AsyncIterable<ChangesResponse>) {
        if (broken) {
          const downMs = Date.now() - (failingSince ?? Date.now());
          options.onResume?.({ sinceRevision: last, retries: failures, downMs });
        }
        // The connection works again: the next failure starts a fresh backoff and clock.
        reached = true;
        broken = false;
        failures = 0;
        failingSince = undefined;
        if (message.progress) {
          options.onProgress?.(message.progress);
          continue;
        }
        const revision = message.revision?.memoryRef?.revision;
        if (!message.revision || revision === undefined || revision <= last) {
          continue; // already delivered before a reconnection: never hand it out twice
        }
        if (revision !== last + 1) {
          throw brokenContract(`follow stream skipped from revision ${last} to ${revision}`);
        }
        last = revision;
        yield message.revision;
      }
      throw brokenContract('follow stream ended without an error');
    } catch (error) {
      if (signal?.aborted) {
        throw abortReason(signal);
      }
      const converted = fromGrpcError(error);
      if (!isTransient(converted)) {
        throw converted; // NOT_FOUND, INVALID_ARGUMENT, a broken contract: retrying cannot help
      }
      const cause = connectFailure(converted);
      if (!reached && window) {
        unreached = window.pause(converted, backoffDelay(failures + 1, backoff));
      }
      reached ||= cause === undefined; // a server answered, so this one is a break
      ended = cause && connect ? unreachable(connect.endpoint, cause, converted) : converted;
    } finally {
      signal?.removeEventListener('abort', cancel);
      if (stream) {
        stream.on('error', () => {}); // the CANCELLED that cancel() causes has no reader left
        stream.cancel();
      }
    }
    failures += 1;
    if (unreached !== undefined) {
      await pause(unreached, signal);
      continue;
    }
    broken = true;
    failingSince ??= Date.now();
    if (Date.now() - failingSince > reconnectForMs) {
      throw ended;
    }
    const delayMs = backoffDelay(failures, backoff);
    options.onRetry?.({ error: ended, attempt: failures, delayMs, sinceRevision: last });
    await pause(delayMs, signal);
  }
}

function brokenContract(details: string): Internal {
  return new Internal({ grpcCode: GrpcStatus.INTERNAL, details });
}
