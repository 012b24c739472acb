// Options, environment and defaults, without a server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';

import { isLoopbackEndpoint, resolveConfig } from '../src/config';
import { callMetadata } from '../src/credentials';

describe('configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'powercontext-config-'));
  const pem = (name: string): string => {
    const path = join(dir, name);
    writeFileSync(path, `-----BEGIN ${name}-----\n`);
    return path;
  };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to plaintext 127.0.0.1:50051, 30 s deadlines and 32 MiB messages', () => {
    const config = resolveConfig({ env: {} });
    assert.equal(config.endpoint, '127.0.0.1:50051');
    assert.equal(config.tls, undefined);
    assert.equal(config.token, undefined);
    assert.equal(config.deadlineMs, 30_000);
    assert.equal(config.channelOptions['grpc.max_receive_message_length'], 32 * 1024 * 1024);
    assert.equal(config.channelOptions['grpc.max_send_message_length'], 32 * 1024 * 1024);
    assert.equal(config.channelOptions['grpc.keepalive_time_ms'], 30_000);
    assert.equal(config.channelOptions['grpc.keepalive_timeout_ms'], 10_000);
  });

  it('reads the endpoint, token and TLS files from POWERCONTEXT_* variables', () => {
    const config = resolveConfig({
      env: {
        POWERCONTEXT_ENDPOINT: 'memory.internal:443',
        POWERCONTEXT_TOKEN: 'secret',
        POWERCONTEXT_TLS_CA: pem('CA'),
        POWERCONTEXT_TLS_CERT: pem('CERT'),
        POWERCONTEXT_TLS_KEY: pem('KEY'),
      },
    });
    assert.equal(config.endpoint, 'memory.internal:443');
    assert.equal(config.token, 'secret');
    assert.equal(config.tls?.ca?.toString(), '-----BEGIN CA-----\n');
    assert.equal(config.tls?.cert?.toString(), '-----BEGIN CERT-----\n');
    assert.equal(config.tls?.key?.toString(), '-----BEGIN KEY-----\n');
  });

  it('lets options win over the environment', () => {
    const config = resolveConfig({
      endpoint: 'localhost:1',
      token: 'mine',
      tls: false,
      env: {
        POWERCONTEXT_ENDPOINT: 'other:2',
        POWERCONTEXT_TOKEN: 'theirs',
        POWERCONTEXT_TLS_CA: pem('CA'),
      },
    });
    assert.equal(config.endpoint, 'localhost:1');
    assert.equal(config.token, 'mine');
    assert.equal(config.tls, undefined);
  });

  it('turns TLS on with the system roots for tls: true', () => {
    assert.deepEqual(resolveConfig({ tls: true, env: {} }).tls, {
      ca: undefined,
      cert: undefined,
      key: undefined,
      serverName: undefined,
    });
  });

  it('checks the server certificate against serverName when given', () => {
    const config = resolveConfig({ tls: { serverName: 'memory.test' }, env: {} });
    assert.equal(config.channelOptions['grpc.ssl_target_name_override'], 'memory.test');
  });

  it('takes the default deadline from POWERCONTEXT_TIMEOUT, in seconds', () => {
    assert.equal(resolveConfig({ env: { POWERCONTEXT_TIMEOUT: '2.5' } }).deadlineMs, 2_500);
    assert.throws(
      () => resolveConfig({ env: { POWERCONTEXT_TIMEOUT: 'soon' } }),
      /POWERCONTEXT_TIMEOUT/,
    );
  });

  it('refuses a client certificate without its key, and unreadable files', () => {
    assert.throws(() => resolveConfig({ env: { POWERCONTEXT_TLS_CERT: pem('CERT') } }), /together/);
    assert.throws(
      () => resolveConfig({ env: { POWERCONTEXT_TLS_CA: join(dir, 'missing.pem') } }),
      /cannot read the TLS CA file/,
    );
  });

  it('refuses nonsensical limits', () => {
    assert.throws(() => resolveConfig({ deadlineMs: 0, env: {} }), RangeError);
    assert.throws(() => resolveConfig({ readRetries: -1, env: {} }), RangeError);
  });

  it('sends the token as a bearer authorization header, static or refreshed', async () => {
    const fixed = await callMetadata('abc', { 'x-request-id': 'r1' });
    assert.deepEqual(fixed.get('authorization'), ['Bearer abc']);
    assert.deepEqual(fixed.get('x-request-id'), ['r1']);
    const refreshed = await callMetadata(async () => 'fresh', undefined);
    assert.deepEqual(refreshed.get('authorization'), ['Bearer fresh']);
    const none = await callMetadata(undefined, undefined);
    assert.deepEqual(none.get('authorization'), []);
  });

  it('knows which endpoints stay on this machine', () => {
    for (const local of [
      '127.0.0.1:50051',
      'localhost:1',
      '[::1]:2',
      'unix:/tmp/s',
      'dns:///localhost:3',
    ]) {
      assert.ok(isLoopbackEndpoint(local), local);
    }
    for (const remote of ['memory.internal:443', '10.0.0.1:50051', 'dns:///example.com:443']) {
      assert.ok(!isLoopbackEndpoint(remote), remote);
    }
  });
});
