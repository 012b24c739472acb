// Idempotent writes against a real server: every write carries a request id, a write whose
// answer is lost on the way back is sent again with it and commits once, and an id cannot be
// reused for another request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { AlreadyExists, MemoryClient, type ArtifactRef } from '../src';
import { CuttingProxy } from './support/cutting-proxy';
import { TestServer } from './support/server';

describe('idempotent writes', { timeout: 60_000 }, () => {
  let server: TestServer;
  let proxy: CuttingProxy;
  let client: MemoryClient;

  before(async () => {
    server = await TestServer.start();
    proxy = await CuttingProxy.start(server.endpoint);
    client = new MemoryClient({ endpoint: proxy.endpoint, deadlineMs: 10_000 });
  });

  after(async () => {
    client?.close();
    await proxy?.close();
    await server?.dispose();
  });

  async function history(memory: ArtifactRef): Promise<number[]> {
    const head = await client.getMemory({ memory: { ...memory, revision: 0 } });
    const revisions = await client.changes({ memory: head.memory, sinceRevision: 0 });
    return revisions.map((revision) => revision.memoryRef?.revision ?? 0);
  }

  it('sends a write again when its answer is lost, and it commits once', async () => {
    const created = await client.remember({ entries: [{ kind: 'fact', text: 'base' }] });
    assert.ok(created.memory);
    const connections = proxy.accepted;
    proxy.arm();
    const written = await client.remember({
      memory: created.memory,
      entries: [{ kind: 'fact', text: 'through a dropped connection' }],
    });
    assert.equal(proxy.cuts, 1, 'the first answer was lost');
    assert.ok(proxy.accepted > connections, 'and the write was sent again');
    assert.equal(written.memory?.revision, 2);
    assert.deepEqual(await history(created.memory), [1, 2], 'exactly one new revision');
    const [own] = await client.changes({ memory: written.memory });
    assert.deepEqual(own?.changes, written.changes, 'the answer is the commit that happened');
  });

  it('answers a repeated request id with the first response, even after the head moved', async () => {
    const request = { entries: [{ kind: 'fact', text: 'created once' }], requestId: 'job-42' };
    const first = await client.remember(request);
    assert.ok(first.memory);
    await client.remember({ memory: first.memory, entries: [{ kind: 'fact', text: 'later' }] });
    assert.deepEqual(await client.remember(request), first);
    assert.deepEqual(await history(first.memory), [1, 2]);

    const reused = await client
      .remember({ entries: [{ kind: 'fact', text: 'another request' }], requestId: 'job-42' })
      .then(
        () => assert.fail('a reused request id must be refused'),
        (caught: unknown) => caught,
      );
    assert.ok(reused instanceof AlreadyExists, String(reused));
    assert.equal(reused.reason, 'REQUEST_ID_REUSED');
    assert.equal(reused.metadata.requestId, 'job-42');
  });

  it('update() with a request id commits once however often it runs', async () => {
    const created = await client.remember({ entries: [{ kind: 'fact', text: 'to update' }] });
    assert.ok(created.memory);
    const change = (): { remember: { entries: { kind: string; text: string }[] } } => ({
      remember: { entries: [{ kind: 'fact', text: 'added by a job' }] },
    });
    const done = await client.update(created.memory, change, { requestId: 'update-7' });
    assert.equal(done?.memory?.revision, 2);
    // Run again (say, the job restarted): built on the newer head, a different request.
    await assert.rejects(client.update(created.memory, change, { requestId: 'update-7' }), {
      name: 'AlreadyExists',
      reason: 'REQUEST_ID_REUSED',
    });
    assert.deepEqual(await history(created.memory), [1, 2]);
  });
});
