// Descriptions and tags, the recall manifest, ListEntries and search filters against a real
// server: happy paths, paging with the async iterators, and the typed errors.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  Aborted,
  InvalidArgument,
  MemoryClient,
  type ArtifactRef,
  type EntryResult,
  type ListedEntry,
} from '../src';
import { TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };

/** The error a call rejects with (fails the test when it resolves). */
async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)}`),
    (error: unknown) => error,
  );
}

/** INVALID_ARGUMENT naming `field`, with `reason` when the test pins one. */
function assertInvalid(error: unknown, reason: string | undefined, field: string): void {
  assert.ok(error instanceof InvalidArgument, String(error));
  if (reason !== undefined) assert.equal(error.reason, reason);
  assert.deepEqual(
    error.fieldViolations.map((violation) => violation.field),
    [field],
  );
}

describe('descriptions, tags, listing and filters against a real server', TIMEOUT, () => {
  let server: TestServer;
  let client: MemoryClient;
  let memory: ArtifactRef;
  let results: EntryResult[];

  before(async () => {
    server = await TestServer.start();
    client = new MemoryClient({ endpoint: server.endpoint, deadlineMs: 10_000 });
    const created = await client.remember({
      entries: [
        {
          kind: 'fact',
          text: 'The release   pipeline\nruns nightly.',
          tags: ['ci', 'release'],
        },
        {
          kind: 'decision',
          text: 'The release pipeline publishes with grpc-js.',
          description: 'Publishing uses grpc-js',
          tags: ['client'],
        },
        { kind: 'fact', text: 'The docs pipeline builds the site.', tags: ['ci'] },
      ],
    });
    assert.ok(created.memory);
    memory = created.memory;
    results = created.results;
  });

  after(async () => {
    client?.close();
    await server?.dispose();
  });

  const sortedIds = (): string[] => results.map((result) => result.entryId).sort();

  it('derives a description when none is given and keeps tags sorted', async () => {
    const citations = results.map((result) => ({
      memoryRef: memory,
      entryId: result.entryId,
      entryVersionId: result.entryVersionId,
    }));
    const { entries } = await client.expand({ citations });
    assert.deepEqual(
      entries.map((entry) => entry.version?.description),
      [
        'The release pipeline runs nightly.',
        'Publishing uses grpc-js',
        'The docs pipeline builds the site.',
      ],
    );
    assert.deepEqual(
      entries.map((entry) => entry.version?.tags),
      [['ci', 'release'], ['client'], ['ci']],
    );
  });

  it('refuses a description over several lines and a tag with a comma', async () => {
    const twoLines = await failure(
      client.remember({
        memory,
        entries: [{ kind: 'fact', text: 'x', description: 'one\ntwo' }],
      }),
    );
    assertInvalid(twoLines, 'DESCRIPTION_INVALID', 'entries[0].description');
    const comma = await failure(
      client.remember({ memory, entries: [{ kind: 'fact', text: 'x', tags: ['a,b'] }] }),
    );
    assertInvalid(comma, 'TAGS_INVALID', 'entries[0].tags[0]');
  });

  it('pages the recall manifest by entry id, without text', async () => {
    const first = await client.getRecallManifest({
      memory: { ...memory, revision: 0 },
      pageSize: 2,
    });
    assert.equal(first.code, 'RECALL_MANIFEST_CODE_PAGE');
    assert.deepEqual(first.memory, memory);
    assert.equal(first.items.length, 2);
    assert.notEqual(first.nextPageToken, '');
    assert.ok(first.nextPageToken.length < 4096);
    for (const item of first.items) {
      assert.equal(item.text, '', 'a recall manifest never carries text');
      assert.equal(item.status, 'ENTRY_STATUS_ACTIVE');
      assert.deepEqual(item.citation?.memoryRef, memory);
    }

    const pages = [];
    for await (const page of client.recallManifestPages({ memory, pageSize: 2 })) {
      pages.push(page);
    }
    assert.equal(pages.length, 2);
    assert.equal(pages.at(-1)?.nextPageToken, '');
    const items = pages.flatMap((page) => page.items);
    assert.deepEqual(
      items.map((item) => item.citation?.entryId),
      sortedIds(),
    );
    const decision = items.find((item) => item.kind === 'decision');
    assert.equal(decision?.description, 'Publishing uses grpc-js');
    assert.deepEqual(decision?.tags, ['client']);
  });

  it('filters the recall manifest by kind and tags, and tells an empty page from an empty memory', async () => {
    const ci = await client.getRecallManifest({ memory, kinds: ['fact'], tags: ['ci', 'release'] });
    assert.deepEqual(
      ci.items.map((item) => item.tags),
      [['ci', 'release']],
    );
    const any = await client.getRecallManifest({
      memory,
      tags: ['client', 'release'],
      tagMatch: 'TAG_MATCH_ANY',
    });
    assert.equal(any.items.length, 2);
    const none = await client.getRecallManifest({ memory, kinds: ['no_such_kind'] });
    assert.equal(none.code, 'RECALL_MANIFEST_CODE_PAGE');
    assert.deepEqual(none.items, []);

    const lone = await client.remember({ entries: [{ kind: 'fact', text: 'Soon forgotten.' }] });
    const [entry] = lone.results;
    assert.ok(lone.memory && entry);
    await client.forget({
      memory: lone.memory,
      entries: [{ entryId: entry.entryId, entryVersionId: entry.entryVersionId }],
    });
    const empty = await client.getRecallManifest({ memory: { ...lone.memory, revision: 0 } });
    assert.equal(empty.code, 'RECALL_MANIFEST_CODE_EMPTY_MEMORY');
    assert.deepEqual(empty.items, []);
  });

  it('refuses a bad page size, a garbled token and a token used with other filters', async () => {
    const tooBig = await failure(client.getRecallManifest({ memory, pageSize: 101 }));
    assertInvalid(tooBig, undefined, 'page_size');
    const garbled = await failure(client.getRecallManifest({ memory, pageToken: 'pc2.x.y' }));
    assertInvalid(garbled, 'PAGE_TOKEN_INVALID', 'page_token');
    const { nextPageToken } = await client.getRecallManifest({ memory, pageSize: 1 });
    const crossed = await failure(
      client.getRecallManifest({ memory, pageSize: 1, pageToken: nextPageToken, kinds: ['fact'] }),
    );
    assertInvalid(crossed, 'PAGE_TOKEN_MISMATCH', 'page_token');
    const retired = await failure(
      client.listEntries({ memory, pageToken: nextPageToken.replace(/^pc2\./, 'pc1.') }),
    );
    assertInvalid(retired, 'PAGE_TOKEN_FORMAT_RETIRED', 'page_token');
  });

  it('lists entries by status with text on request, a page at a time', async () => {
    const head = await client.getMemory({ memory: { ...memory, revision: 0 } });
    const docs = results[2];
    assert.ok(head.memory && docs);
    const forgotten = await client.forget({
      memory: head.memory,
      entries: [{ entryId: docs.entryId, entryVersionId: docs.entryVersionId }],
    });

    const active = await client.listEntries({ memory: { ...memory, revision: 0 } });
    assert.deepEqual(active.memory, forgotten.memory);
    assert.equal(active.entries.length, 2);
    assert.ok(
      active.entries.every((entry) => entry.text === ''),
      'no text unless asked',
    );

    const inactive = await client.listEntries({
      memory: forgotten.memory,
      statuses: ['ENTRY_STATUS_INACTIVE'],
      includeText: true,
    });
    assert.deepEqual(
      inactive.entries.map((entry) => [entry.citation?.entryId, entry.status, entry.text]),
      [[docs.entryId, 'ENTRY_STATUS_INACTIVE', 'The docs pipeline builds the site.']],
    );

    const listed: ListedEntry[] = [];
    let pages = 0;
    for await (const page of client.listEntryPages({
      memory: forgotten.memory,
      pageSize: 1,
      statuses: ['ENTRY_STATUS_ACTIVE', 'ENTRY_STATUS_INACTIVE'],
    })) {
      pages++;
      listed.push(...page.entries);
    }
    assert.ok(pages >= 3, `one entry a page, ${pages} pages`);
    assert.deepEqual(
      listed.map((entry) => entry.citation?.entryId),
      sortedIds(),
    );
  });

  it('filters search by kind and tags before the limit, and drops hits under min_score', async () => {
    const head = { ...memory, revision: 0 };
    const current = (await client.getMemory({ memory: head, metadataOnly: true })).memory!;
    const search = (extra: object): ReturnType<MemoryClient['search']> =>
      client.search({
        query: 'release pipeline',
        memories: [current],
        mode: 'SEARCH_MODE_FTS',
        ...extra,
      });

    const all = await search({});
    assert.ok(all.hits.length >= 2, JSON.stringify(all.hits));
    const decisions = await search({ kinds: ['decision'], limit: 1 });
    assert.deepEqual(
      decisions.hits.map((hit) => [hit.kind, hit.description, hit.tags]),
      [['decision', 'Publishing uses grpc-js', ['client']]],
    );
    const tagged = await search({ tags: ['release'] });
    assert.deepEqual(
      tagged.hits.map((hit) => hit.tags),
      [['ci', 'release']],
    );
    const high = await search({ minScore: 1e9 });
    assert.deepEqual(high.hits, []);
    const negative = await failure(search({ minScore: -1 }));
    assert.ok(negative instanceof InvalidArgument, String(negative));
    assert.deepEqual(
      negative.fieldViolations.map((violation) => violation.field),
      ['min_score'],
    );
  });

  it('reads a memory without its manifest when asked for metadata only', async () => {
    const full = await client.getMemory({ memory: { ...memory, revision: 0 } });
    const bare = await client.getMemory({ memory: { ...memory, revision: 0 }, metadataOnly: true });
    assert.equal(full.contentOmitted, false);
    assert.ok((full.content?.manifest?.entries.length ?? 0) > 0);
    assert.equal(bare.contentOmitted, true);
    assert.deepEqual(bare.content?.manifest?.entries ?? [], []);
    assert.equal(bare.contentHash, full.contentHash, 'the hash still names the whole content');
    assert.equal(bare.activeEntries, full.activeEntries);
  });
});

describe('listing memories and labels against a real server', TIMEOUT, () => {
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

  it('lists every memory once, pages included, with its head, counts and label', async () => {
    const ids: string[] = [];
    for (const text of ['first memory', 'second memory', 'third memory']) {
      const created = await client.remember({ entries: [{ kind: 'fact', text }] });
      assert.ok(created.memory);
      ids.push(created.memory.artifactId);
    }
    const listed: string[] = [];
    for await (const page of client.listMemoryPages({ pageSize: 2 })) {
      for (const summary of page.memories) {
        assert.ok(summary.head);
        listed.push(summary.head.artifactId);
        assert.equal(Number(summary.head.revision), 1);
        assert.equal(Number(summary.activeEntries), 1);
        assert.equal(summary.lastOperation, 'remember');
      }
    }
    assert.deepEqual(listed, [...ids].sort());

    const set = await client.setMemoryLabel({ memoryId: ids[0], label: 'Build notes' });
    assert.equal(Number(set.labelVersion), 1);
    const stale = await failure(
      client.setMemoryLabel({ memoryId: ids[0], label: 'Other', labelVersion: 0 }),
    );
    assert.ok(stale instanceof Aborted, String(stale));
    assert.equal(stale.reason, 'LABEL_CONFLICT');
    const page = await client.listMemories({ pageSize: 100 });
    const mine = page.memories.find((m) => m.head?.artifactId === ids[0]);
    assert.equal(mine?.label, 'Build notes');
    const bad = await failure(client.listMemories({ pageSize: 101 }));
    assertInvalid(bad, undefined, 'page_size');
  });
});
