// Every kind of call against an endpoint that refuses connections fails fast and says why:
// within about a second (the connect window), with an Unavailable naming the endpoint and the
// refused connection, never at its deadline; a follow that never reached a server too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { DEFAULT_CONNECT_TIMEOUT_MS, MemoryClient, Unavailable, type FollowRetry } from '../src';
import { TestServer } from './support/server';

// Generous for a loaded machine: a few times the default connect window.
const BOUND_MS = 3_000;

describe('calls to an endpoint that refuses connections', { timeout: 60_000 }, () => {
  let server: TestServer;
  let client: MemoryClient;
  const memory = { artifactId: `mem_art_${'0'.repeat(32)}`, revision: 0 };

  before(async () => {
    server = await TestServer.start();
    await server.stop(); // its port refuses connections from now on
    client = new MemoryClient({ endpoint: server.endpoint, env: {} });
  });

  after(async () => {
    client?.close();
    await server?.dispose();
  });

  async function failsFast(call: () => Promise<unknown>): Promise<number> {
    const started = Date.now();
    await assert.rejects(call(), (error: unknown) => {
      assert.ok(error instanceof Unavailable, String(error));
      assert.equal(error.code, 'UNAVAILABLE');
      assert.equal(error.details, `cannot reach ${server.endpoint}: connection refused`);
      return true;
    });
    const elapsed = Date.now() - started;
    assert.ok(elapsed < BOUND_MS, `took ${elapsed} ms`);
    return elapsed;
  }

  it('fails reads, writes, changes and follow after the connect window', async () => {
    const retries: FollowRetry[] = [];
    const calls: Record<string, () => Promise<unknown>> = {
      read: () => client.getMemory({ memory }),
      write: () => client.remember({ entries: [{ kind: 'fact', text: 'lost' }] }),
      merge: () => client.merge({ memory, inputs: [], text: 'lost', kind: 'fact' }),
      changes: () => client.changes({ memory: { ...memory, revision: 1 } }),
      follow: () => client.follow(memory, 0, { onRetry: (retry) => retries.push(retry) }).next(),
    };
    for (const [name, call] of Object.entries(calls)) {
      const elapsed = await failsFast(call);
      // Tried again for the whole window: a restarting server would have been found.
      assert.ok(elapsed >= DEFAULT_CONNECT_TIMEOUT_MS * 0.9, `${name}: ${elapsed} ms`);
    }
    assert.deepEqual(retries, [], 'a follow that never connected is not reconnecting');
  });

  it('fails at once with a window of 0', async () => {
    const impatient = new MemoryClient({
      endpoint: server.endpoint,
      env: {},
      connectTimeoutMs: 0,
      // Its own connection attempt, as in a new process: one shared with `client` may have
      // failed before this channel looked, and then grpc-js does not know why.
      channelOptions: { 'grpc.use_local_subchannel_pool': 1 },
    });
    try {
      const elapsed = await failsFast(() => impatient.getMemory({ memory }));
      assert.ok(elapsed < DEFAULT_CONNECT_TIMEOUT_MS, `took ${elapsed} ms`);
    } finally {
      impatient.close();
    }
  });

  it('takes the window from POWERCONTEXT_CONNECT_TIMEOUT, in seconds', () => {
    const configured = new MemoryClient({
      endpoint: server.endpoint,
      env: { POWERCONTEXT_CONNECT_TIMEOUT: '0.25' },
    });
    configured.close();
    assert.equal(configured.config.connectTimeoutMs, 250);
    assert.equal(client.config.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
  });
});
