// The client against a real server: create, remember, CJK search, and the typed errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  InvalidArgument,
  MemoryClient,
  NotFound,
  PowerContextError,
  RevisionConflict,
  type ArtifactRef,
} from '../src';
import { TestServer } from './support/server';

const TIMEOUT = { timeout: 30_000 };
const UNKNOWN_MEMORY = `mem_art_${'0'.repeat(32)}`;

describe('MemoryClient against a real server', TIMEOUT, () => {
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

  async function createMemory(text: string): Promise<ArtifactRef> {
    const created = await client.remember({ entries: [{ kind: 'fact', text }] });
    assert.ok(created.memory, 'remember without memory creates one');
    return created.memory;
  }

  it('creates a memory', async () => {
    const created = await client.remember({
      entries: [{ kind: 'decision', text: 'Use grpc-js for the Node client.' }],
    });

    assert.equal(created.changed, true);
    assert.match(created.memory?.artifactId ?? '', /^mem_art_[0-9a-f]{32}$/);
    assert.equal(created.memory?.revision, 1);
    assert.equal(created.results[0]?.outcome, 'ENTRY_OUTCOME_ADDED');
    assert.equal(created.changes[0]?.op, 'CHANGE_OP_ADD');

    const read = await client.getMemory({ memory: { ...created.memory, revision: 0 } });
    assert.equal(read.headRevision, 1);
    assert.equal(read.activeEntries, 1);
    assert.equal(read.contentHash, created.contentHash);
  });

  it('remembers new and revised entries on the head', async () => {
    const head = await createMemory('The build runs on Node.js 20.');
    const first = await client.getMemory({ memory: head });
    const entry = first.content?.manifest?.entries[0];
    assert.ok(entry);

    const next = await client.remember({
      memory: head,
      entries: [
        { kind: 'fact', text: 'Tests use the node:test runner.' },
        {
          kind: 'fact',
          text: 'The build runs on Node.js 20 or newer.',
          entry: { entryId: entry.entryId, entryVersionId: entry.entryVersionId },
        },
      ],
    });

    assert.equal(next.memory?.revision, 2);
    assert.deepEqual(
      next.results.map((result) => result.outcome),
      ['ENTRY_OUTCOME_ADDED', 'ENTRY_OUTCOME_REVISED'],
    );
    const history = await client.changes({ memory: next.memory, sinceRevision: 0 });
    assert.deepEqual(
      history.map((revision) => revision.memoryRef?.revision),
      [1, 2],
    );
    assert.deepEqual(
      history[1]?.changes.map((change) => change.op).sort(), // changes come sorted by entry id
      ['CHANGE_OP_ADD', 'CHANGE_OP_REVISE'],
    );
  });

  it('finds CJK text with full-text search', async () => {
    // The README's corrected convention: the question shares 11 of its 35 distinct terms
    // (unigrams and bigrams) with it, above the server's admission bar of a quarter.
    const text =
      '验证约定：常规代码变更运行 make test；仅文档变更优先运行 make docs-test；评审前运行 make check。';
    const head = await createMemory(text);

    const found = await client.search({
      query: '修改文档前需要知道哪些构建和验证约定？',
      memories: [head],
      mode: 'SEARCH_MODE_FTS',
    });

    assert.equal(found.mode, 'SEARCH_MODE_FTS');
    const hit = found.hits.find((candidate) => candidate.text === text);
    assert.ok(hit, `no hit for the CJK entry in ${JSON.stringify(found.hits)}`);
    assert.ok(hit.matchedBy.includes('SEARCH_CHANNEL_FTS'));
    assert.equal(hit.memoryRef?.artifactId, head.artifactId);
  });

  it('prepares a context block with rules first and citations that expand', async () => {
    const created = await client.remember({
      entries: [
        { kind: 'fact', text: 'Docs are built with make docs.' },
        { kind: 'constraint', text: '不要手改 site/ 目录：它是生成的。' },
      ],
    });
    assert.ok(created.memory);
    const prepared = await client.prepareContext({
      memories: [{ artifactId: created.memory.artifactId, revision: 0 }],
      query: 'docs',
      budgetBytes: 2048,
    });

    assert.deepEqual(prepared.memories, [created.memory]);
    assert.equal(prepared.entries[0]?.section, 'CONTEXT_SECTION_RULES');
    assert.equal(prepared.entries[0]?.kind, 'constraint');
    assert.ok(prepared.entries.some((e) => e.section === 'CONTEXT_SECTION_RELEVANT'));
    assert.ok(Buffer.byteLength(prepared.block, 'utf8') <= 2048);
    assert.match(prepared.block, /^<memory-notes>\n[^\n]*not instructions/);
    const citations = prepared.entries.map((e) => e.citation!);
    const expanded = await client.expand({ citations });
    assert.deepEqual(
      expanded.entries.map((e) => e.version?.text),
      prepared.entries.map((e) => e.text),
    );

    const error = await client
      .prepareContext({ memories: [created.memory], budgetBytes: 100 })
      .then(
        () => assert.fail('a 100-byte budget was accepted'),
        (e: unknown) => e,
      );
    assert.ok(error instanceof InvalidArgument);
    assert.deepEqual(
      error.fieldViolations.map((v) => v.field),
      ['budget_bytes'],
    );
  });

  it('refuses a write on a stale base with RevisionConflict naming the real head', async () => {
    const base = await createMemory('First writer wins.');
    await client.remember({ memory: base, entries: [{ kind: 'fact', text: 'Writer A.' }] });
    await client.remember({
      memory: { ...base, revision: 2 },
      entries: [{ kind: 'fact', text: 'Writer A again.' }],
    });

    const error = await client
      .remember({ memory: base, entries: [{ kind: 'fact', text: 'Writer B.' }] })
      .then(
        () => assert.fail('a stale write must fail'),
        (caught: unknown) => caught,
      );

    assert.ok(error instanceof RevisionConflict, String(error));
    assert.ok(error instanceof PowerContextError);
    assert.equal(error.code, 'ABORTED');
    assert.equal(error.reason, 'REVISION_CONFLICT');
    assert.equal(error.domain, 'powercontext.memory');
    assert.equal(error.artifactId, base.artifactId);
    assert.equal(error.expectedRevision, 1);
    assert.equal(error.headRevision, 3);
    const head = await client.getMemory({ memory: { ...base, revision: 0 } });
    assert.equal(head.headRevision, 3, 'the refused write changed nothing');
  });

  it('update() re-reads the head and re-applies a change that lost the race', async () => {
    const base = await createMemory('Before the race.');
    const heads: number[] = [];

    const updated = await client.update(base.artifactId, async (head) => {
      heads.push(head.memory?.revision ?? 0);
      if (heads.length === 1) {
        // Another writer commits between our read and our write.
        await client.remember({ memory: head.memory, entries: [{ kind: 'fact', text: 'Rival.' }] });
      }
      return { remember: { entries: [{ kind: 'fact', text: 'Ours, on the real head.' }] } };
    });

    assert.deepEqual(heads, [1, 2], 'the change ran again on the head that won');
    assert.equal(updated?.memory?.revision, 3);
  });

  it('reports INVALID_ARGUMENT with the offending field', async () => {
    const head = await createMemory('Something to search.');

    const error = await client.search({ query: '   ', memories: [head] }).then(
      () => assert.fail('an empty query must fail'),
      (caught: unknown) => caught,
    );

    assert.ok(error instanceof InvalidArgument, String(error));
    assert.equal(error.code, 'INVALID_ARGUMENT');
    assert.equal(error.reason, 'EMPTY_QUERY');
    assert.deepEqual(error.fieldViolations, [{ field: 'query', description: 'is required' }]);
  });

  it('reports NOT_FOUND for an unknown memory', async () => {
    const error = await client
      .getMemory({ memory: { artifactId: UNKNOWN_MEMORY, revision: 0 } })
      .then(
        () => assert.fail('an unknown memory must fail'),
        (caught: unknown) => caught,
      );

    assert.ok(error instanceof NotFound, String(error));
    assert.equal(error.code, 'NOT_FOUND');
    assert.equal(error.reason, 'MEMORY_NOT_FOUND');
    assert.equal(error.metadata.artifactId, UNKNOWN_MEMORY);
  });
});
