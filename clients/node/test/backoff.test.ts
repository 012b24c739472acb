import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { backoffDelay, resolveBackoff } from '../src/backoff';

describe('backoff', () => {
  const policy = resolveBackoff({ initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2 });

  it('grows exponentially up to the bound, with jitter in the upper half', () => {
    const lowest = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, policy, () => 0));
    const highest = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, policy, () => 1));
    assert.deepEqual(lowest, [50, 100, 200, 400, 500, 500]);
    assert.deepEqual(highest, [100, 200, 400, 800, 1_000, 1_000]);
  });

  it('never exceeds the bound with real randomness', () => {
    for (let attempt = 1; attempt < 50; attempt++) {
      const delay = backoffDelay(attempt, policy);
      assert.ok(delay >= 50 && delay <= 1_000, String(delay));
    }
  });

  it('refuses policies that cannot be honoured', () => {
    assert.throws(() => resolveBackoff({ initialDelayMs: 10, maxDelayMs: 5 }), RangeError);
    assert.throws(() => resolveBackoff({ multiplier: 0.5 }), RangeError);
  });
});
