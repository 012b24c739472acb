// How calls behave while the server is away: reads wait within their deadline, writes fail
// fast (after a few quick re-sends with their request id) and are never committed later, and
// callers can cancel.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { DeadlineExceeded, MemoryClient, Unavailable, type ArtifactRef } from '../src';
import { TestServer } from './support/server';

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

  it('fails a write fast with Unavailable, and a read at its deadline', async () => {
    await server.stop();
    try {
      const started = Date.now();
      await assert.rejects(
        client.remember({ memory, entries: [{ kind: 'fact', text: 'lost' }] }),
        Unavailable,
      );
      assert.ok(Date.now() - started < 2_000, 'a write does not wait for the server');

      await assert.rejects(
        client.getMemory({ memory: { ...memory, revision: 0 } }, { deadlineMs: 300 }),
        DeadlineExceeded,
      );
    } finally {
      await server.restart();
    }
    const head = await client.getMemory({ memory: { ...memory, revision: 0 } });
    assert.equal(head.headRevision, 1, 'the failed write was not sent later');
  });

  it('lets a read ride out a restart: it waits for the server, or is sent again', async () => {
    // Sent while the server drains (it cancels new calls), is down, or is back: all must work.
    const [, head] = await Promise.all([
      server.restart(),
      client.getMemory({ memory: { ...memory, revision: 0 } }, { deadlineMs: 20_000 }),
    ]);
    assert.equal(head.headRevision, 1);
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
