// How calls behave while the server is away: reads and writes fail fast, naming the endpoint
// and the refused connection, once the connect window is over; a failed write is never
// committed later; a read rides out a restart inside the window; callers can cancel.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { MemoryClient, Unavailable, type ArtifactRef } from '../src';
import { TestServer } from './support/server';

// A connect window long enough for the server process to be started again inside it.
const RESTART_WINDOW_MS = 20_000;

describe('calls while the server is away', { timeout: 60_000 }, () => {
  let server: TestServer;
  let client: MemoryClient;
  let memory: ArtifactRef;

  before(async () => {
    server = await TestServer.start();
    client = new MemoryClient({ endpoint: server.endpoint, backoff: { maxDelayMs: 500 } });
    const created = await client.remember({ entries: [{ kind: 'fact', text: 'still here' }] });
    assert.ok(created.memory);
    memory = created.memory;
  });

  after(async () => {
    client?.close();
    await server?.dispose();
  });

  it('fails a write and a read fast with Unavailable naming the endpoint', async () => {
    await server.stop();
    const refused = (error: unknown): boolean => {
      assert.ok(error instanceof Unavailable, String(error));
      assert.equal(error.details, `cannot reach ${server.endpoint}: connection refused`);
      return true;
    };
    try {
      const started = Date.now();
      await assert.rejects(
        client.remember({ memory, entries: [{ kind: 'fact', text: 'lost' }] }),
        refused,
      );
      assert.ok(Date.now() - started < 3_000, 'a write does not wait for the server');

      const reading = Date.now();
      await assert.rejects(client.getMemory({ memory: { ...memory, revision: 0 } }), refused);
      assert.ok(Date.now() - reading < 3_000, 'a read fails after the window, not its deadline');
      // A deadline shorter than the window ends it early, with the same error.
      await assert.rejects(
        client.getMemory({ memory: { ...memory, revision: 0 } }, { deadlineMs: 300 }),
        refused,
      );
    } finally {
      await server.restart();
    }
    const head = await client.getMemory({ memory: { ...memory, revision: 0 } });
    assert.equal(head.headRevision, 1, 'the failed write was not sent later');
  });

  it('lets a read ride out a restart within the connect window', async () => {
    const patient = new MemoryClient({
      endpoint: server.endpoint,
      backoff: { maxDelayMs: 500 },
      connectTimeoutMs: RESTART_WINDOW_MS,
    });
    try {
      // Sent while the server drains (it cancels new calls), is down, or is back: all must work.
      const [, head] = await Promise.all([
        server.restart(),
        patient.getMemory({ memory: { ...memory, revision: 0 } }, { deadlineMs: 20_000 }),
      ]);
      assert.equal(head.headRevision, 1);
    } finally {
      patient.close();
    }
  });

  it('cancels a call when its signal aborts', async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await assert.rejects(
      client.getMemory({ memory }, { signal: controller.signal }),
      /caller gave up/,
    );
  });
});
