// Quickstart: create a memory, add to it, search it in Chinese, meet a conflict, follow it.
//   POWERCONTEXT_ENDPOINT=127.0.0.1:50051 npm run example     (after `npm run build`)
// In another project, import from '@powercontext/memory-client' instead of '../src'.
import { MemoryClient, RevisionConflict } from '../src';

const CONVENTION =
  '验证约定：常规代码变更运行 make test；仅文档变更优先运行 make docs-test；评审前运行 make check。';
const QUESTION = '修改文档前需要知道哪些构建和验证约定？';

async function main(): Promise<void> {
  // Endpoint, token and TLS come from POWERCONTEXT_* variables; every call has a deadline.
  const client = new MemoryClient();
  try {
    // Remember without a base memory creates one, at revision 1.
    const created = await client.remember({
      entries: [{ kind: 'decision', text: 'The Node client talks gRPC through grpc-js.' }],
    });
    const memory = created.memory!;
    console.log(`created ${memory.artifactId} at revision ${memory.revision}`);

    // update() reads the head, builds the write on it, and re-applies it if another writer
    // moved the head first: the one safe way to retry a write.
    const updated = await client.update(memory.artifactId, () => ({
      remember: { entries: [{ kind: 'fact', text: CONVENTION }] },
    }));
    const head = updated!.memory!;
    console.log(`remembered the convention at revision ${head.revision}`);

    // A write on a stale base changes nothing and names the real head.
    try {
      await client.remember({ memory, entries: [{ kind: 'fact', text: 'Too late.' }] });
    } catch (error) {
      if (!(error instanceof RevisionConflict)) throw error;
      console.log(`conflict: ${error.reason}, head is revision ${error.headRevision}`);
    }

    const found = await client.search({
      query: QUESTION,
      memories: [head],
      mode: 'SEARCH_MODE_FTS',
    });
    for (const hit of found.hits) {
      console.log(`found [${hit.matchedBy.join(',')}] ${hit.text}`);
    }

    // follow() replays the history, then waits for new revisions; stop once at the head.
    for await (const revision of client.follow(memory.artifactId, 0)) {
      const ops = revision.changes.map((change) => change.op).join(', ');
      console.log(`revision ${revision.memoryRef!.revision}: ${ops}`);
      if (revision.memoryRef!.revision === head.revision) break;
    }
  } finally {
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
