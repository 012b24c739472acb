// Cancellation by AbortSignal, the same way for unary calls, reads and follow().
import { setTimeout as sleep } from 'node:timers/promises';

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
export async function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? abortReason(signal) : error;
  }
}

export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('The call was aborted', 'AbortError');
}
