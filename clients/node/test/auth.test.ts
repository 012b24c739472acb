// The client against a real server that checks bearer tokens and speaks TLS, then mutual TLS:
// settings from POWERCONTEXT_* variables or options, and the typed refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { DeadlineExceeded, MemoryClient, PowerContextError, Unauthenticated } from '../src';
import { makePki, type Pki } from './support/pki';
import { serverCommand, TestServer } from './support/server';

const TIMEOUT = { timeout: 60_000 };

/** `powercontext-memory tokens create` on the server's database: the token, printed once. */
function createToken(database: string, scope: string): string {
  const args = ['tokens', 'create', '--database', database, '--name', 'node', '--scope', scope];
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
    // A read waits (within its deadline) for a channel that never gets through the handshake.
    assert.ok(plaintext instanceof DeadlineExceeded, plaintext.message);
    assert.match(plaintext.message, /Waiting for LB pick/);
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
    assert.ok(error instanceof DeadlineExceeded, error.message); // no connection, ever
    assert.match(error.message, /Waiting for LB pick/);
  });
});
