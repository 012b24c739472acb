// Merge, Restore, UndoMerge and PreviewRestore against a real server: the A+B→C, C+D→E chain
// restored from B, undo of one merge, a historical version restored, stale previews, the typed
// errors, and that these writes (which have no request id) are sent once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Aborted,
  FailedPrecondition,
  InvalidArgument,
  MemoryClient,
  RevisionConflict,
  Unavailable,
  type ArtifactRef,
  type EntryRef,
  type EntryRefInput,
} from '../src';
import { CuttingProxy } from './support/cutting-proxy';
import { TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

const ids = (refs: readonly EntryRef[]): string[] => refs.map((ref) => ref.entryId);

describe('merge and restore against a real server', TIMEOUT, () => {
  let server: TestServer;
  let client: MemoryClient;

  before(async () => {
    server = await TestServer.start();
    client = new MemoryClient({ endpoint: server.endpoint, deadlineMs: 10_000 });
  });

  after(async () => {
    client?.close();
    await server?.dispose();
  });

  /** A new memory with these facts: its ref and each entry's ref, in order. */
  async function memoryWith(...texts: string[]): Promise<[ArtifactRef, ...EntryRef[]]> {
    const created = await client.remember({
      entries: texts.map((text, n) => ({ kind: 'fact', text, tags: [`t${n}`] })),
    });
    assert.ok(created.memory);
    const refs = created.results.map((r) => ({
      entryId: r.entryId,
      entryVersionId: r.entryVersionId,
    }));
    return [created.memory, ...refs];
  }

  async function activeIds(memory: ArtifactRef): Promise<string[]> {
    const listed = await client.listEntries({ memory: { ...memory, revision: 0 } });
    return listed.entries.map((entry) => entry.citation!.entryId);
  }

  it('merges A+B into C, then C+D into E, and restoring B undoes both merges', async () => {
    const [memory, a, b, d] = await memoryWith('Alpha.', 'Beta.', 'Delta.');
    assert.ok(a && b && d);

    const first = await client.merge({
      memory,
      inputs: [a, b],
      kind: 'fact',
      text: 'Alpha and beta.',
      reason: 'dedupe',
    });
    assert.equal(first.memory?.revision, 2);
    const c = first.result!;
    assert.deepEqual(
      first.changes.map((change) => [change.op, change.entryId]).sort(),
      [
        ['CHANGE_OP_ADD', c.entryId],
        ['CHANGE_OP_DEACTIVATE', a.entryId],
        ['CHANGE_OP_DEACTIVATE', b.entryId],
      ].sort(),
    );
    const merged = await client.listEntries({
      memory: first.memory,
      statuses: ['ENTRY_STATUS_MERGED'],
    });
    assert.deepEqual(
      merged.entries.map((entry) => [entry.citation?.entryId, entry.mergedIntoEntryId]),
      [
        [a.entryId, c.entryId],
        [b.entryId, c.entryId],
      ].sort(),
    );
    // The result keeps the union of the inputs' tags, and the inputs' citations still expand.
    const [result, oldA] = (
      await client.expand({
        citations: [
          { memoryRef: first.memory, ...c },
          { memoryRef: memory, ...a },
        ],
      })
    ).entries;
    assert.deepEqual(result?.version?.tags, ['t0', 't1']);
    assert.equal(result?.version?.description, 'Alpha and beta.');
    assert.equal(oldA?.version?.text, 'Alpha.');

    const second = await client.merge({
      memory: first.memory,
      inputs: [c, d],
      kind: 'fact',
      text: 'Alpha, beta and delta.',
    });
    const e = second.result!;
    assert.deepEqual(await activeIds(memory), [e.entryId]);

    const preview = await client.previewRestore({
      memory: { ...memory, revision: 0 },
      operation: 'RESTORE_OPERATION_RESTORE',
      entryId: b.entryId,
    });
    assert.equal(preview.wouldChange, true);
    assert.deepEqual(preview.memory, second.memory);
    assert.deepEqual(ids(preview.outcome!.restored).sort(), [a, b, d].map((r) => r.entryId).sort());
    assert.deepEqual(ids(preview.outcome!.retired).sort(), [c.entryId, e.entryId].sort());
    assert.deepEqual(preview.outcome!.undoneMergeResults, [e.entryId, c.entryId]);
    assert.ok(preview.previewToken && preview.expiresAt);
    assert.deepEqual(await activeIds(memory), [e.entryId], 'a preview writes nothing');

    const restored = await client.restore({
      memory: { ...memory, revision: 0 },
      entryId: b.entryId,
      previewToken: preview.previewToken,
    });
    assert.equal(restored.changed, true);
    assert.equal(restored.memory?.revision, 4);
    assert.deepEqual(restored.outcome?.undoneMergeResults, [e.entryId, c.entryId]);
    assert.deepEqual(await activeIds(memory), [a, b, d].map((r) => r.entryId).sort());
    // Each comes back with the version it had when frozen.
    const versions = (await client.listEntries({ memory: restored.memory })).entries.map(
      (entry) => entry.citation!.entryVersionId,
    );
    assert.deepEqual(versions.sort(), [a, b, d].map((r) => r.entryVersionId).sort());

    const again = await client.restore({ memory: restored.memory, entryId: b.entryId });
    assert.equal(again.changed, false, 'restoring an active entry is a no-op');
    assert.deepEqual(again.memory, restored.memory);

    const history = await client.changes({ memory: restored.memory, sinceRevision: 1 });
    const reasons = history.flatMap((revision) => revision.changes.map((change) => change.reason));
    assert.ok(reasons.includes('dedupe') && reasons.includes('merge'), String(reasons));
  });

  it('undoes one merge, and refuses an entry that is no merge result', async () => {
    const [memory, x, y] = await memoryWith('Xray.', 'Yankee.');
    assert.ok(x && y);
    const merged = await client.merge({ memory, inputs: [x, y], kind: 'fact', text: 'X and Y.' });
    const z = merged.result!;

    const undone = await client.undoMerge({ memory: merged.memory, entryId: z.entryId });
    assert.equal(undone.changed, true);
    assert.deepEqual(ids(undone.outcome!.retired), [z.entryId]);
    assert.deepEqual(await activeIds(memory), [x.entryId, y.entryId].sort());

    const notMerged = await failure(
      client.undoMerge({ memory: undone.memory, entryId: x.entryId }),
    );
    assert.ok(notMerged instanceof FailedPrecondition, String(notMerged));
    assert.equal(notMerged.reason, 'NOT_A_MERGE_RESULT');
  });

  it('restores a historical version as a new version linked to the current one', async () => {
    const [memory, entry] = await memoryWith('Version one.');
    assert.ok(entry);
    const revised = await client.remember({
      memory,
      entries: [{ kind: 'fact', text: 'Version two.', entry }],
    });
    const current = revised.results[0]!;

    const restored = await client.restore({
      memory: revised.memory,
      entryId: entry.entryId,
      entryVersionId: entry.entryVersionId,
    });
    assert.equal(restored.changed, true);
    const [now] = restored.outcome!.restored;
    assert.ok(now && now.entryVersionId !== entry.entryVersionId);
    const [expanded] = (
      await client.expand({ citations: [{ memoryRef: restored.memory, ...now }] })
    ).entries;
    assert.equal(expanded?.version?.text, 'Version one.');
    assert.equal(expanded?.version?.previousVersionId, current.entryVersionId);
  });

  it('refuses a stale preview, a garbled one and one for another target', async () => {
    const [memory, x, y, w] = await memoryWith('One.', 'Two.', 'Three.');
    assert.ok(x && y && w);
    const merged = await client.merge({ memory, inputs: [x, y], kind: 'fact', text: 'One, two.' });
    const z = merged.result!;
    const head = { ...memory, revision: 0 };

    const preview = await client.previewRestore({
      memory: head,
      operation: 'RESTORE_OPERATION_UNDO_MERGE',
      entryId: z.entryId,
    });
    // Something the plan reads changes: the merge result is forgotten.
    await client.forget({ memory: merged.memory, entries: [z] });
    const stale = await failure(
      client.undoMerge({ memory: head, entryId: z.entryId, previewToken: preview.previewToken }),
    );
    assert.ok(stale instanceof Aborted, String(stale));
    assert.ok(!(stale instanceof RevisionConflict));
    assert.equal(stale.reason, 'PREVIEW_STALE');

    const garbled = await failure(
      client.undoMerge({ memory: head, entryId: z.entryId, previewToken: 'pc2.e30.AAAA' }),
    );
    assert.ok(garbled instanceof InvalidArgument, String(garbled));
    assert.equal(garbled.reason, 'PREVIEW_TOKEN_INVALID');
    assert.deepEqual(
      garbled.fieldViolations.map((violation) => violation.field),
      ['preview_token'],
    );

    const fresh = await client.previewRestore({
      memory: head,
      operation: 'RESTORE_OPERATION_RESTORE',
      entryId: x.entryId,
    });
    const other = await failure(
      client.restore({ memory: head, entryId: w.entryId, previewToken: fresh.previewToken }),
    );
    assert.ok(other instanceof InvalidArgument, String(other));
    assert.equal(other.reason, 'PREVIEW_TOKEN_MISMATCH');
  });

  it('refuses merges of fewer than two, repeated, stale or inactive inputs', async () => {
    const [memory, a, b] = await memoryWith('Apple.', 'Banana.');
    assert.ok(a && b);
    const merge = (inputs: EntryRefInput[], base: ArtifactRef = memory): Promise<unknown> =>
      failure(client.merge({ memory: base, inputs, kind: 'fact', text: 'Fruit.' }));

    for (const [inputs, reason] of [
      [[a], 'MERGE_NEEDS_TWO_INPUTS'],
      [[a, a], 'DUPLICATE_ENTRY_IN_BATCH'],
    ] as const) {
      const error = await merge([...inputs]);
      assert.ok(error instanceof InvalidArgument, String(error));
      assert.equal(error.reason, reason);
      assert.ok(error.fieldViolations.some((violation) => violation.field.startsWith('inputs')));
    }

    const revised = await client.remember({
      memory,
      entries: [{ kind: 'fact', text: 'Apples.', entry: a }],
    });
    const stale = await merge([a, b], revised.memory!);
    assert.ok(stale instanceof Aborted && !(stale instanceof RevisionConflict), String(stale));
    assert.equal(stale.reason, 'ENTRY_VERSION_STALE');

    const oldHead = await merge([revised.results[0]!, b], memory);
    assert.ok(oldHead instanceof RevisionConflict, String(oldHead));
    assert.equal(oldHead.headRevision, 2);

    const forgotten = await client.forget({ memory: revised.memory, entries: [b] });
    const inactive = await merge([revised.results[0]!, b], forgotten.memory!);
    assert.ok(inactive instanceof FailedPrecondition, String(inactive));
    assert.equal(inactive.reason, 'ENTRY_INACTIVE');
  });

  it('sends a merge once: a lost answer is Unavailable and the merge committed once', async () => {
    const proxy = await CuttingProxy.start(server.endpoint);
    const viaProxy = new MemoryClient({ endpoint: proxy.endpoint, deadlineMs: 10_000 });
    try {
      const [memory, a, b] = await memoryWith('Left.', 'Right.');
      assert.ok(a && b);
      await viaProxy.waitForReady();
      const connections = proxy.accepted;
      proxy.arm();
      const lost = await failure(
        viaProxy.merge({ memory, inputs: [a, b], kind: 'fact', text: 'Both.' }),
      );
      assert.ok(lost instanceof Unavailable, String(lost));
      assert.equal(proxy.cuts, 1);
      assert.equal(proxy.accepted, connections, 'not sent again on a new connection');
      const head = await client.getMemory({
        memory: { ...memory, revision: 0 },
        metadataOnly: true,
      });
      assert.equal(head.memory?.revision, 2, 'the one send committed');
    } finally {
      viaProxy.close();
      await proxy.close();
    }
  });
});
