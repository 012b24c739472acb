// src/generated/ must be exactly what scripts/generate.mjs makes from ../../proto today:
// a contract change without `npm run generate` fails here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

import { packageRoot } from './support/server';

function filesUnder(root: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const path = join(entry.parentPath ?? entry.path, entry.name);
      files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  }
  return files;
}

describe('generated code', () => {
  it('is up to date with proto/', { timeout: 30_000 }, () => {
    const root = packageRoot();
    const fresh = mkdtempSync(join(tmpdir(), 'powercontext-generated-'));
    try {
      execFileSync(process.execPath, [join(root, 'scripts', 'generate.mjs'), '--out', fresh], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      const expected = filesUnder(fresh);
      const committed = filesUnder(join(root, 'src', 'generated'));
      const hint = 'src/generated is stale: run `npm run generate` in clients/node';
      assert.deepEqual([...committed.keys()].sort(), [...expected.keys()].sort(), hint);
      for (const [path, content] of expected) {
        assert.ok(committed.get(path) === content, `${hint} (${path} differs)`);
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
