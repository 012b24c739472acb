// The client against a real server that checks bearer tokens and speaks TLS, then mutual TLS:
// settings from POWERCONTEXT_* variables or options, and the typed refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import {
  MemoryClient,
  NotFound,
  PermissionDenied,
  PowerContextError,
  Unauthenticated,
  Unavailable,
} from '../src';
import { makePki, type Pki } from './support/pki';
import { serverCommand, TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };

/** `powercontext-memory tokens create` on the server's database: the token, printed once. */
function createToken(database: string, scope: string, ...memories: string[]): string {
  const args = ['tokens', 'create', '--database', database, '--name', 'node', '--scope', scope];
  for (const memory of memories) args.push('--memory', memory);
  return execFileSync(serverCommand(), args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

async function refused(client: MemoryClient): Promise<PowerContextError> {
  try {
    await client.getCapabilities();
  } catch (error) {
    assert.ok(error instanceof PowerContextError, String(error));
    return error;
  } finally {
    client.close();
  }
  assert.fail('the call was not refused');
}

describe('tokens and TLS against a real server', TIMEOUT, () => {
  const dir = mkdtempSync(join(tmpdir(), 'powercontext-pki-'));
  let pki: Pki;
  let server: TestServer;
  let token: string;

  before(async () => {
    pki = makePki(dir);
    // --auth tokens: checked from the start; the token is made while the server runs.
    server = await TestServer.start({
      args: ['--auth', 'tokens', '--tls-cert', pki.serverCert, '--tls-key', pki.serverKey],
    });
    token = createToken(server.databasePath, 'write');
  });

  after(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes the token and the CA from POWERCONTEXT_* variables', async () => {
    const client = new MemoryClient({
      env: {
        POWERCONTEXT_ENDPOINT: server.endpoint,
        POWERCONTEXT_TOKEN: token,
        POWERCONTEXT_TLS_CA: pki.ca,
      },
      deadlineMs: 10_000,
    });
    try {
      const created = await client.remember({
        entries: [{ kind: 'fact', text: 'Node clients speak TLS.' }],
      });
      const found = await client.search({ query: 'node TLS', memories: [created.memory!] });
      assert.equal(found.hits[0]?.entryId, created.results[0]?.entryId);
    } finally {
      client.close();
    }
  });

  it('is refused without a token, with a wrong one, or in plaintext', async () => {
    const tls = { caFile: pki.ca };
    const missing = await refused(
      new MemoryClient({ endpoint: server.endpoint, tls, env: {}, deadlineMs: 10_000 }),
    );
    assert.ok(missing instanceof Unauthenticated);
    assert.equal(missing.reason, 'TOKEN_MISSING');
    const forged = `${token.slice(0, -2)}xx`;
    const wrong = await refused(
      new MemoryClient({ endpoint: server.endpoint, token: forged, tls, env: {} }),
    );
    assert.ok(wrong instanceof Unauthenticated);
    assert.equal(wrong.reason, 'TOKEN_INVALID');
    assert.ok(!wrong.message.includes(forged));
    const plaintext = await refused(
      new MemoryClient({
        endpoint: server.endpoint,
        token,
        tls: false,
        env: {},
        deadlineMs: 2_000,
        readRetries: 0,
      }),
    );
    // A channel that never gets through the handshake reaches no server: the connect window.
    assert.ok(plaintext instanceof Unavailable, plaintext.message);
    assert.ok(plaintext.details.startsWith(`cannot reach ${server.endpoint}: `), plaintext.message);
  });
});

describe('a token limited to one memory, and sources', TIMEOUT, () => {
  let server: TestServer;
  let admin: MemoryClient;
  let limited: MemoryClient;
  let mine: string;
  let theirs: string;

  before(async () => {
    server = await TestServer.start({ args: ['--auth', 'tokens'] });
    const options = { endpoint: server.endpoint, tls: false, env: {}, deadlineMs: 10_000 };
    admin = new MemoryClient({ ...options, token: createToken(server.databasePath, 'admin') });
    const create = async (text: string) =>
      (await admin.remember({ entries: [{ kind: 'fact', text }] })).memory!.artifactId;
    mine = await create('Node releases are tagged by CI.');
    theirs = await create("Another team's memory.");
    const token = createToken(server.databasePath, 'write', mine);
    limited = new MemoryClient({ ...options, token });
  });

  after(async () => {
    admin?.close();
    limited?.close();
    await server?.dispose();
  });

  it('stores a source only for one of its memories, and reads only theirs', async () => {
    const note = { kind: 'user_note', content: Buffer.from('Release on Fridays only.') };
    await assert.rejects(limited.putSource(note), (error: unknown) => {
      assert.ok(error instanceof PermissionDenied, String(error));
      assert.equal(error.reason, 'SOURCE_MEMORY_REQUIRED');
      return true;
    });
    const stored = await limited.putSource({ ...note, memoryId: mine });
    assert.equal(stored.created, true);
    const read = await limited.getSource({ sourceId: stored.source!.sourceId });
    assert.equal(Buffer.from(read.source!.content).toString(), 'Release on Fridays only.');

    // A source only the other memory has is answered as one that does not exist.
    const hidden = await admin.putSource({
      kind: 'user_note',
      content: Buffer.from('Their plans.'),
      memoryId: theirs,
    });
    const missing = 'src_' + '0'.repeat(32);
    const errors: NotFound[] = [];
    for (const sourceId of [hidden.source!.sourceId, missing]) {
      await assert.rejects(limited.getSource({ sourceId }), (error: unknown) => {
        assert.ok(error instanceof NotFound, String(error));
        errors.push(error);
        return true;
      });
    }
    assert.deepEqual(
      errors.map((e) => e.reason),
      ['SOURCE_NOT_FOUND', 'SOURCE_NOT_FOUND'],
    );
  });
});

describe('mutual TLS against a real server', TIMEOUT, () => {
  const dir = mkdtempSync(join(tmpdir(), 'powercontext-mtls-'));
  let pki: Pki;
  let server: TestServer;
  let token: string;

  before(async () => {
    pki = makePki(dir);
    server = await TestServer.start({
      args: [
        '--auth',
        'tokens',
        '--tls-cert',
        pki.serverCert,
        '--tls-key',
        pki.serverKey,
        '--tls-client-ca',
        pki.ca,
      ],
    });
    token = createToken(server.databasePath, 'read');
  });

  after(async () => {
    await server?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects with a client certificate from POWERCONTEXT_TLS_CERT and _KEY', async () => {
    const client = new MemoryClient({
      env: {
        POWERCONTEXT_ENDPOINT: server.endpoint,
        POWERCONTEXT_TOKEN: token,
        POWERCONTEXT_TLS_CA: pki.ca,
        POWERCONTEXT_TLS_CERT: pki.clientCert,
        POWERCONTEXT_TLS_KEY: pki.clientKey,
      },
      deadlineMs: 10_000,
    });
    try {
      const answer = await client.getCapabilities();
      assert.equal(answer.capabilities?.backend, 'sqlite');
    } finally {
      client.close();
    }
  });

  it('is refused without a client certificate', async () => {
    const error = await refused(
      new MemoryClient({
        endpoint: server.endpoint,
        token,
        tls: { caFile: pki.ca },
        env: {},
        deadlineMs: 2_000,
        readRetries: 0,
      }),
    );
    assert.ok(error instanceof Unavailable, error.message); // no connection, ever
    assert.ok(error.details.startsWith(`cannot reach ${server.endpoint}: `), error.message);
  });
});
