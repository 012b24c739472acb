// One revision as a diff: its operation and evidence, and for each change the old text and the
// new text, read as exact versions with Expand (the old one at the revision before). Walkable
// back to revision 1.

import { call, collect } from '../api.js';
import { block, chips, el, fill, link, untrusted } from '../dom.js';
import { showError } from '../errors.js';
import { enumName, int, when } from '../format.js';
import { citation } from '../refs.js';
import { href } from '../router.js';
import { memoryHeader, openSession } from '../session.js';
import { artifactRefList, sourceRefList } from './sources.js';
import { changeLine } from './timeline.js';
import { wordDiff } from './words.js';

const EXPAND_BATCH = 100;

export async function diffView({ id, revision, outlet, signal }) {
  const session = openSession(id);
  const number = int(revision);
  const status = el('div', { class: 'status' }, 'Loading…');
  outlet.append(status);
  try {
    await session.ready;
    const [memory, messages] = await Promise.all([
      call('GetMemory', { memory: { artifactId: id, revision: String(number) }, metadataOnly: true }, { signal }),
      collect('Changes', { memory: { artifactId: id, revision: String(number) } }, { signal }),
    ]);
    const changes = messages.filter((m) => m.revision).flatMap((m) => m.revision.changes || []);
    const versions = await versionsOf(id, number, changes, signal);
    const lineage = memory.lineage || {};
    fill(outlet,
      memoryHeader(session, 'Timeline', signal),
      el('nav', { class: 'walk' },
        number > 1 ? link(href(['m', id, 'rev', number - 1]), `← revision ${number - 1}`) : el('span', { class: 'muted' }, 'first revision'),
        ' · ', link(href(['m', id], { rev: number }), `entries as of revision ${number}`), ' · ',
        number < session.head ? link(href(['m', id, 'rev', number + 1]), `revision ${number + 1} →`) : el('span', { class: 'muted' }, 'the head')),
      el('h2', {}, `Revision ${number}: `, untrusted(lineage.operation || '?', 'operation')),
      el('div', { class: 'muted' }, `${when(memory.committedAt)} · content hash `, untrusted(memory.contentHash, 'hash')),
      sourceRefList(lineage.sources, 'Operation evidence'),
      artifactRefList(lineage.artifacts),
      el('div', { class: 'diff' }, changes.map((change) => changeDiff(id, change, versions))),
      changes.length ? null : el('p', { class: 'muted' }, 'This revision changed no entry.'));
  } catch (error) {
    showError(status, error, { what: `Reading revision ${number}` });
  }
}

/** entry version id -> EntryVersion, for every from (at n - 1) and to (at n) of the changes. */
async function versionsOf(id, number, changes, signal) {
  const wanted = [];
  for (const change of changes) {
    if (change.fromEntryVersionId) wanted.push(citation(id, number - 1, change.entryId, change.fromEntryVersionId));
    if (change.toEntryVersionId) wanted.push(citation(id, number, change.entryId, change.toEntryVersionId));
  }
  const found = new Map();
  for (let i = 0; i < wanted.length; i += EXPAND_BATCH) {
    const answer = await call('Expand', { citations: wanted.slice(i, i + EXPAND_BATCH) }, { signal });
    for (const item of answer.entries || []) found.set(item.version.entryVersionId, item.version);
  }
  return found;
}

function side(version, label) {
  if (!version) return el('div', { class: `side ${label} none` }, el('div', { class: 'muted' }, label === 'old' ? '(none)' : '(no new version)'));
  return el('div', { class: `side ${label}` },
    el('div', { class: 'kind-line' }, untrusted(version.kind, 'kind'), ' ', chips(version.tags),
      el('span', { class: 'muted' }, ` v${int(version.version)}`)),
    block(version.text, 'entry-text'),
    version.description ? el('div', { class: 'description' }, untrusted(version.description)) : null);
}

function changeDiff(id, change, versions) {
  const before = versions.get(change.fromEntryVersionId || '');
  const after = versions.get(change.toEntryVersionId || '');
  const revised = before && after && before.entryVersionId !== after.entryVersionId;
  return el('section', { class: 'change-diff', dataset: { entry: change.entryId } },
    el('ul', { class: 'changes' }, changeLine(id, change)),
    el('div', { class: 'sides' }, side(before, 'old'), el('div', { class: 'arrow' }, '→'), side(after, 'new')),
    revised && before.text !== after.text ? el('div', { class: 'word-diff' },
      el('div', { class: 'muted' }, 'Text changes:'), wordDiff(before.text, after.text)) : null);
}
