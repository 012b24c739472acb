import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  condition: () => boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await sleep(20);
  }
}
