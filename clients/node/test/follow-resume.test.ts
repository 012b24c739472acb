// followRevisions() on scripted streams, without a server: the resume point, duplicates, a gap,
// and when it gives up.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';

import { Metadata, status, type ClientReadableStream } from '@grpc/grpc-js';

import {
  Internal,
  NotFound,
  Unavailable,
  type ChangesResponse,
  type FollowResume,
  type FollowRetry,
} from '../src';
import { resolveBackoff } from '../src/backoff';
import { followRevisions, type OpenFollowStream } from '../src/follow';

const NO_WAIT = resolveBackoff({ initialDelayMs: 1, maxDelayMs: 2 });

function revision(n: number): ChangesResponse {
  return {
    event: 'revision',
    revision: {
      memoryRef: { artifactId: 'mem_art_1', revision: n },
      contentHash: `hash${n}`,
      changes: [],
      committedAt: null,
    },
  };
}

function grpcError(code: status, details = 'scripted'): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), {
    code,
    details,
    metadata: new Metadata(),
  });
}

/** A stream that yields `messages`, then fails with `error` (or ends cleanly without one). */
function scripted(
  messages: ChangesResponse[],
  error?: Error,
): ClientReadableStream<ChangesResponse> {
  const stream = new Readable({ objectMode: true, read() {} });
  messages.forEach((message) => stream.push(message));
  if (error) setImmediate(() => stream.destroy(error));
  else stream.push(null);
  return Object.assign(stream, { cancel() {} }) as unknown as ClientReadableStream<ChangesResponse>;
}

/** An opener that plays one script per connection and records each resume point. */
function opener(scripts: Array<() => ClientReadableStream<ChangesResponse>>): {
  open: OpenFollowStream;
  sinces: number[];
} {
  const sinces: number[] = [];
  const open: OpenFollowStream = async (since) => {
    sinces.push(since);
    const next = scripts.shift();
    if (!next) throw new Error('no more scripted connections');
    return next();
  };
  return { open, sinces };
}

async function take(source: AsyncGenerator<{ memoryRef: { revision: number } | null }>, n: number) {
  const revisions: number[] = [];
  for await (const item of source) {
    revisions.push(item.memoryRef?.revision ?? -1);
    if (revisions.length === n) break;
  }
  return revisions;
}

describe('followRevisions', () => {
  it('reopens after the last delivered revision and drops anything repeated', async () => {
    const { open, sinces } = opener([
      () => scripted([revision(3), revision(4)], grpcError(status.UNAVAILABLE)),
      () => scripted([revision(4), revision(5)], grpcError(status.CANCELLED)),
      () => scripted([revision(6)], grpcError(status.UNAVAILABLE)),
    ]);

    const got = await take(followRevisions(open, 2, NO_WAIT), 4);

    assert.deepEqual(got, [3, 4, 5, 6]);
    assert.deepEqual(sinces, [2, 4, 5]);
  });

  it('refuses a gap instead of hiding it', async () => {
    const { open } = opener([() => scripted([revision(1), revision(3)])]);
    await assert.rejects(take(followRevisions(open, 0, NO_WAIT), 3), Internal);
  });

  it('treats a clean end of a follow stream as a broken contract', async () => {
    const { open } = opener([() => scripted([revision(1)])]);
    await assert.rejects(take(followRevisions(open, 0, NO_WAIT), 2), /ended without an error/);
  });

  it('throws errors that retrying cannot fix at once', async () => {
    const { open, sinces } = opener([() => scripted([], grpcError(status.NOT_FOUND))]);
    await assert.rejects(take(followRevisions(open, 0, NO_WAIT), 1), NotFound);
    assert.equal(sinces.length, 1);
  });

  it('tells onRetry when the stream broke and onResume when it is back', async () => {
    const { open } = opener([
      () => scripted([revision(3)], grpcError(status.UNAVAILABLE)),
      () => scripted([], grpcError(status.UNAVAILABLE)),
      () => scripted([revision(4)], grpcError(status.UNAVAILABLE)),
    ]);
    const retries: FollowRetry[] = [];
    const resumes: FollowResume[] = [];
    const options = {
      onRetry: (retry: FollowRetry) => retries.push(retry),
      onResume: (resume: FollowResume) => resumes.push(resume),
    };

    assert.deepEqual(await take(followRevisions(open, 2, NO_WAIT, options), 2), [3, 4]);
    assert.deepEqual(
      retries.map((retry) => [retry.attempt, retry.sinceRevision]),
      [
        [1, 3],
        [2, 3],
      ],
    );
    assert.deepEqual(
      resumes.map((resume) => [resume.sinceRevision, resume.retries]),
      [[3, 2]],
    );
  });

  it('fails a follow that never reached a server once the connect window is over', async () => {
    const refused =
      'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:9. Resolution note: ';
    const failing = Array.from(
      { length: 1000 },
      () => () => scripted([], grpcError(status.UNAVAILABLE, refused)),
    );
    const { open } = opener(failing);
    const retries: FollowRetry[] = [];
    const connect = { endpoint: '127.0.0.1:9', connectTimeoutMs: 50 };
    const follow = followRevisions(open, 0, NO_WAIT, { onRetry: (r) => retries.push(r) }, connect);
    await assert.rejects(take(follow, 1), {
      name: 'Unavailable',
      details: 'cannot reach 127.0.0.1:9: connection refused',
    });
    assert.deepEqual(retries, []);
  });

  it('gives up with the last Unavailable once reconnecting has failed for reconnectForMs', async () => {
    const failing = Array.from(
      { length: 1000 },
      () => () => scripted([], grpcError(status.UNAVAILABLE, 'down')),
    );
    const { open, sinces } = opener(failing);
    const started = Date.now();
    await assert.rejects(
      take(followRevisions(open, 0, NO_WAIT, { reconnectForMs: 100 }), 1),
      Unavailable,
    );
    assert.ok(Date.now() - started >= 100);
    assert.ok(sinces.length > 1 && sinces.every((since) => since === 0));
  });
});
