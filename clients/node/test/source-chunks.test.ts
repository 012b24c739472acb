// getSource reads a source larger than one answer chunk after chunk and checks the whole;
// getSourceChunk is one answer. Against a real server, then against chunks that do not add up.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { DataLoss, InvalidArgument, MemoryClient, type GetSourceResponse } from '../src';
import { readWholeSource, sourceContentHash } from '../src/source-chunks';
import { TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };
const MiB = 1024 * 1024;
const CHUNK = 3 * MiB;

/** Bytes whose every position differs from its neighbours', so a misplaced chunk shows. */
function patterned(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

function violatedField(error: unknown): string {
  assert.ok(error instanceof InvalidArgument, String(error));
  return error.fieldViolations[0]?.field ?? '';
}

describe('getSource against a real server', TIMEOUT, () => {
  let server: TestServer;
  let client: MemoryClient;
  const content = patterned(8 * MiB); // the largest source PutSource accepts
  // '9' and '10': a JS object lists integer-like keys first, RFC 8785 orders them as text.
  const metadata = { '9': 'nine', '10': 'ten', note: 'é "quoted"\n\u0001 中文 😀' };
  let sourceId = '';
  let contentHash = '';

  before(async () => {
    server = await TestServer.start();
    client = new MemoryClient({ endpoint: server.endpoint, deadlineMs: 30_000 });
    const stored = await client.putSource({
      kind: 'file',
      uri: 'repo://big.bin',
      mediaType: 'application/octet-stream',
      content,
      metadata,
    });
    sourceId = stored.source!.sourceId;
    contentHash = stored.source!.contentHash;
  });

  after(async () => {
    client?.close();
    await server?.dispose();
  });

  it('computes the content_hash the server computed', () => {
    const source = { sourceId, kind: 'file', uri: 'repo://big.bin', content, metadata };
    assert.equal(
      sourceContentHash({
        ...source,
        mediaType: 'application/octet-stream',
        contentHash,
        createdAt: null,
      }),
      contentHash,
    );
    assert.notEqual(
      sourceContentHash({ ...source, mediaType: 'text/plain', contentHash, createdAt: null }),
      contentHash,
    );
  });

  it('answers the first chunk truncated, and getSource the whole content', async () => {
    const first = await client.getSourceChunk({ sourceId });
    assert.equal(first.contentSize, content.length);
    assert.equal(first.contentTruncated, true);
    assert.equal(first.source!.contentHash, contentHash);
    assert.ok(first.source!.content.equals(content.subarray(0, CHUNK)));

    const whole = await client.getSource({ sourceId });
    assert.equal(whole.contentSize, content.length);
    assert.equal(whole.contentTruncated, false);
    assert.equal(whole.source!.contentHash, contentHash);
    assert.deepEqual(whole.source!.metadata, metadata);
    assert.ok(whole.source!.content.equals(content));
  });

  it('answers a window of the content, and its last byte', async () => {
    const window = await client.getSourceChunk({ sourceId, contentOffset: 5, contentLimit: 7 });
    assert.ok(window.source!.content.equals(content.subarray(5, 12)));
    assert.equal(window.contentTruncated, true);
    const last = await client.getSourceChunk({ sourceId, contentOffset: content.length - 1 });
    assert.ok(last.source!.content.equals(content.subarray(content.length - 1)));
    assert.equal(last.contentTruncated, false);
  });

  it('answers a small source whole in one answer', async () => {
    const small = await client.putSource({ kind: 'user_note', content: Buffer.from('a note') });
    const read = await client.getSource({ sourceId: small.source!.sourceId });
    assert.equal(read.source!.content.toString(), 'a note');
    assert.equal(read.contentSize, 6);
    assert.equal(read.contentTruncated, false);
  });

  it('refuses an offset past the end and a limit over the chunk, naming the field', async () => {
    const refusals: Array<[Parameters<MemoryClient['getSourceChunk']>[0], string]> = [
      [{ sourceId, contentOffset: content.length }, 'content_offset'],
      [{ sourceId, contentOffset: -1 }, 'content_offset'],
      [{ sourceId, contentLimit: CHUNK + 1 }, 'content_limit'],
      [{ sourceId, contentLimit: -1 }, 'content_limit'],
    ];
    for (const [request, field] of refusals) {
      await assert.rejects(client.getSourceChunk(request), (error: unknown) => {
        assert.equal(violatedField(error), field, JSON.stringify(request));
        return true;
      });
    }
  });
});

describe('readWholeSource over chunks that do not add up', () => {
  const content = patterned(10);
  const source = {
    sourceId: 'src_x',
    kind: 'file',
    uri: '',
    mediaType: '',
    content,
    metadata: {},
    contentHash: '',
    createdAt: null,
  };
  source.contentHash = sourceContentHash(source);

  /** Answers of 4 bytes from `bytes`, as a server would cut them, for the record `source`. */
  function answers(bytes: Buffer, hash = source.contentHash) {
    const read = async (offset: number): Promise<GetSourceResponse> => ({
      source: { ...source, contentHash: hash, content: bytes.subarray(offset, offset + 4) },
      contentSize: bytes.length,
      contentTruncated: offset + 4 < bytes.length,
    });
    return read;
  }

  it('reassembles chunks that match', async () => {
    const whole = await readWholeSource(answers(content));
    assert.ok(whole.source!.content.equals(content));
    assert.equal(whole.contentTruncated, false);
  });

  it('throws DataLoss when a byte changed, a chunk names another hash or is empty', async () => {
    const changed = Buffer.from(content);
    changed.writeUInt8(changed.readUInt8(7) ^ 1, 7);
    const hashes = answers(content);
    const mixed = async (offset: number): Promise<GetSourceResponse> => {
      const answer = await hashes(offset);
      return offset
        ? { ...answer, source: { ...answer.source!, contentHash: 'f'.repeat(64) } }
        : answer;
    };
    const stuck = async (offset: number): Promise<GetSourceResponse> => {
      const answer = await hashes(offset);
      return offset
        ? { ...answer, source: { ...answer.source!, content: Buffer.alloc(0) } }
        : answer;
    };
    const cases: Array<[(offset: number) => Promise<GetSourceResponse>, RegExp]> = [
      [answers(changed), /does not match content_hash/],
      [mixed, /names another content_hash/],
      [stuck, /is empty but not the last/],
    ];
    for (const [read, message] of cases) {
      await assert.rejects(readWholeSource(read), (error: unknown) => {
        assert.ok(error instanceof DataLoss, String(error));
        assert.equal(error.code, 'DATA_LOSS');
        assert.match(error.details, message);
        return true;
      });
    }
  });
});
