// Bounded, jittered exponential backoff for retries that are safe to make (reads, resuming a
// follow stream). Jitter keeps many clients of a restarting server from retrying in lockstep.

export interface BackoffPolicy {
  /** Ceiling of the first delay. */
  readonly initialDelayMs: number;
  /** No delay ever exceeds this. */
  readonly maxDelayMs: number;
  /** Growth of the ceiling per consecutive failure. */
  readonly multiplier: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = Object.freeze({
  initialDelayMs: 50,
  maxDelayMs: 2_000,
  multiplier: 2,
});

/**
 * Delay before retry number `attempt` (1 for the first retry): uniformly random in the upper
 * half of min(maxDelayMs, initialDelayMs * multiplier^(attempt - 1)), so it never collapses to
 * zero and never exceeds the bound.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = DEFAULT_BACKOFF,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, attempt - 1);
  const ceiling = Math.min(
    policy.maxDelayMs,
    policy.initialDelayMs * policy.multiplier ** exponent,
  );
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

export function resolveBackoff(overrides: Partial<BackoffPolicy> | undefined): BackoffPolicy {
  const policy = { ...DEFAULT_BACKOFF, ...overrides };
  if (!(policy.initialDelayMs >= 0) || !(policy.maxDelayMs >= policy.initialDelayMs)) {
    throw new RangeError('backoff needs 0 <= initialDelayMs <= maxDelayMs');
  }
  if (!(policy.multiplier >= 1)) {
    throw new RangeError('backoff multiplier must be >= 1');
  }
  return Object.freeze(policy);
}
