// The quickstart is compiled with everything else and run here, so it cannot rot.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import { packageRoot, TestServer } from './support/server';

const run = promisify(execFile);

describe('examples/quickstart', { timeout: 30_000 }, () => {
  let server: TestServer;

  before(async () => {
    server = await TestServer.start();
  });

  after(async () => {
    await server?.dispose();
  });

  it('runs against a real server', async () => {
    const script = join(packageRoot(), 'dist', 'examples', 'quickstart.js');
    // Only the endpoint: a token or TLS setting of the surrounding shell must not leak in.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('POWERCONTEXT_')),
    );
    const { stdout } = await run(process.execPath, [script], {
      env: { ...env, POWERCONTEXT_ENDPOINT: server.endpoint },
      timeout: 20_000,
    });

    assert.match(stdout, /^created mem_art_[0-9a-f]{32} at revision 1$/m);
    assert.match(stdout, /^remembered the convention at revision 2$/m);
    assert.match(stdout, /^conflict: REVISION_CONFLICT, head is revision 2$/m);
    assert.match(stdout, /^found \[SEARCH_CHANNEL_FTS\] 验证约定/m);
    assert.match(stdout, /^revision 1: CHANGE_OP_ADD\nrevision 2: CHANGE_OP_ADD$/m);
  });
});
