// follow() against a real server that is stopped (SIGTERM) and started again on the same port
// and database: the follower must see every revision exactly once, in order.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  MemoryClient,
  NotFound,
  Unavailable,
  type ArtifactRef,
  type FollowResume,
  type FollowRetry,
} from '../src';
import { eventually } from './support/eventually';
import { TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };
// Fast reconnection keeps the test short; the bound still applies.
const FAST_BACKOFF = { initialDelayMs: 50, maxDelayMs: 500 };

describe('follow()', TIMEOUT, () => {
  let server: TestServer;

  before(async () => {
    server = await TestServer.start({ progressIntervalSeconds: 1 });
  });

  after(async () => {
    await server?.dispose();
  });

  async function commit(
    client: MemoryClient,
    memory: ArtifactRef,
    text: string,
  ): Promise<ArtifactRef> {
    const written = await client.remember({ memory, entries: [{ kind: 'fact', text }] });
    assert.ok(written.memory);
    return written.memory;
  }

  /**
   * Follows a new memory from revision 0, commits revision 2, restarts the server with
   * `signal`, commits revisions 3 and 4 from a new client, and returns what the follower saw
   * once the server reports it idle at head 4.
   */
  async function followAcrossRestart(
    signal: 'SIGTERM' | 'SIGKILL',
  ): Promise<{ received: number[]; retries: FollowRetry[]; resumes: FollowResume[] }> {
    const writer = new MemoryClient({ endpoint: server.endpoint });
    const follower = new MemoryClient({ endpoint: server.endpoint, backoff: FAST_BACKOFF });
    const received: number[] = [];
    const retries: FollowRetry[] = [];
    const resumes: FollowResume[] = [];
    let lastProgressHead = 0;
    const stop = new AbortController();
    try {
      const created = await writer.remember({ entries: [{ kind: 'fact', text: 'revision 1' }] });
      assert.ok(created.memory);
      const memory = created.memory;

      const following = (async () => {
        const revisions = follower.follow(memory, 0, {
          signal: stop.signal,
          onRetry: (retry) => retries.push(retry),
          onResume: (resume) => resumes.push(resume),
          onProgress: (progress) => (lastProgressHead = progress.head?.revision ?? 0),
        });
        for await (const revision of revisions) {
          received.push(revision.memoryRef?.revision ?? -1);
        }
      })();

      await eventually('revision 1', () => received.length === 1);
      const second = await commit(writer, memory, 'revision 2');
      await eventually('revision 2', () => received.length === 2);

      await server.restart(signal); // stop, wait for the exit, start on the same port and db
      writer.close();
      const writer2 = new MemoryClient({ endpoint: server.endpoint });
      try {
        // Committed at once: possibly before the follower is back, so it comes from history.
        const third = await commit(writer2, second, 'revision 3');
        await commit(writer2, third, 'revision 4');
      } finally {
        writer2.close();
      }

      await eventually('revision 4', () => received.length >= 4);
      // A keep-alive naming head 4 proves the server has nothing more to send.
      await eventually('progress at head 4', () => lastProgressHead === 4);

      stop.abort();
      await assert.rejects(following, { name: 'AbortError' });
      return { received, retries, resumes };
    } finally {
      stop.abort();
      writer.close();
      follower.close();
    }
  }

  it('resumes after a graceful restart (SIGTERM) with no gap and no duplicate', async (t) => {
    const { received, retries, resumes } = await followAcrossRestart('SIGTERM');
    t.diagnostic(`reconnections: ${describeRetries(retries)}`);
    assert.equal(resumes[0]?.sinceRevision, 2, 'onResume heard that the stream is back');
    assert.ok(resumes[0].retries >= 1 && resumes[0].downMs >= 0);

    assert.deepEqual(received, [1, 2, 3, 4]);
    const [shutdown] = retries;
    assert.ok(shutdown?.error instanceof Unavailable, 'the restart forced a reconnection');
    assert.equal(shutdown.error.reason, 'SHUTTING_DOWN');
    assert.equal(shutdown.error.resumeSinceRevision, 2);
    assert.equal(shutdown.sinceRevision, 2);
    assert.ok(retries.every((retry) => retry.delayMs <= FAST_BACKOFF.maxDelayMs));
  });

  it('resumes after a crash (SIGKILL) with no gap and no duplicate', async (t) => {
    const { received, retries, resumes } = await followAcrossRestart('SIGKILL');
    t.diagnostic(`reconnections: ${describeRetries(retries)}`);
    assert.equal(resumes[0]?.sinceRevision, 2, 'onResume heard that the stream is back');

    assert.deepEqual(received, [1, 2, 3, 4]);
    assert.ok(retries.length >= 1, 'the crash forced a reconnection');
    assert.equal(retries[0]?.sinceRevision, 2);
  });

  it('fails at once for an unknown memory instead of retrying', async () => {
    const client = new MemoryClient({ endpoint: server.endpoint });
    try {
      const revisions = client.follow(`mem_art_${'f'.repeat(32)}`);
      await assert.rejects(revisions.next(), (error: unknown) => {
        assert.ok(error instanceof NotFound, String(error));
        assert.equal(error.reason, 'MEMORY_NOT_FOUND');
        return true;
      });
    } finally {
      client.close();
    }
  });

  it('ends with an AbortError when the client is closed', async () => {
    const client = new MemoryClient({ endpoint: server.endpoint });
    const created = await client.remember({ entries: [{ kind: 'fact', text: 'closing' }] });
    assert.ok(created.memory);
    const revisions = client.follow(created.memory);
    assert.equal((await revisions.next()).value?.memoryRef?.revision, 1);

    const waiting = revisions.next();
    client.close();
    await assert.rejects(waiting, { name: 'AbortError', message: 'the client was closed' });
  });

  it('stops the stream when the consumer breaks out of the loop', async () => {
    const client = new MemoryClient({ endpoint: server.endpoint });
    try {
      const created = await client.remember({ entries: [{ kind: 'fact', text: 'only one' }] });
      assert.ok(created.memory);
      for await (const revision of client.follow(created.memory)) {
        assert.equal(revision.memoryRef?.revision, 1);
        break; // must cancel the call and end the generator without an unhandled error
      }
      // The channel is still usable afterwards.
      const head = await client.getMemory({ memory: { ...created.memory, revision: 0 } });
      assert.equal(head.headRevision, 1);
    } finally {
      client.close();
    }
  });
});

/** "SHUTTING_DOWN, UNAVAILABLE, ...": why each reconnection happened. */
function describeRetries(retries: readonly FollowRetry[]): string {
  return retries.map((retry) => retry.error.reason || retry.error.code).join(', ');
}
