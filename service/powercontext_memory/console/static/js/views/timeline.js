// Every revision of a memory, newest first: its operation (GetMemory's lineage), the changes
// with their reasons, and the entries touched. New revisions arrive from the open memory's
// follow stream and appear at the top without a reload.

import { call, collect, pooled } from '../api.js';
import { button, el, link, untrusted } from '../dom.js';
import { showError } from '../errors.js';
import { enumName, int, when } from '../format.js';
import { citation } from '../refs.js';
import { href } from '../router.js';
import { memoryHeader, openSession } from '../session.js';

const SHOWN_AT_ONCE = 50;
const CHANGES_SHOWN = 12;

export async function timelineView({ id, outlet, signal }) {
  const session = openSession(id);
  const status = el('div', { class: 'status' }, 'Loading…');
  outlet.append(status);
  try {
    await session.ready;
  } catch (error) {
    showError(status, error, { what: `Opening ${id}` });
    return;
  }
  const list = el('ol', { class: 'timeline', reversed: true });
  const more = el('div');
  outlet.replaceChildren(memoryHeader(session, 'Timeline', signal), list, more, status);
  const seen = new Set();
  const upTo = session.head;
  session.subscribe((kind, revision) => {
    if (kind !== 'revision') return;
    const number = int(revision.memoryRef.revision);
    if (number <= upTo || seen.has(number)) return;
    seen.add(number);
    const row = revisionRow(id, revision);
    row.classList.add('arrived');
    list.prepend(row);
    fillOperations(id, [row], signal);
  }, signal);
  status.textContent = 'Reading the history…';
  try {
    const messages = await collect('Changes', {
      memory: { artifactId: id, revision: String(upTo) }, sinceRevision: '0',
    }, { signal });
    const history = messages.filter((m) => m.revision).map((m) => m.revision).reverse();
    for (const revision of session.live) {
      const number = int(revision.memoryRef.revision);
      if (number > upTo && !seen.has(number)) {
        seen.add(number);
        const row = revisionRow(id, revision);
        list.prepend(row);
        fillOperations(id, [row], signal);
      }
    }
    status.textContent = '';
    showMore(history, 0, { id, list, more, signal });
  } catch (error) {
    showError(status, error, { what: 'Reading the history' });
  }
}

function showMore(history, from, parts) {
  const { id, list, more, signal } = parts;
  const rows = history.slice(from, from + SHOWN_AT_ONCE).map((revision) => revisionRow(id, revision));
  list.append(...rows);
  more.replaceChildren();
  if (from + SHOWN_AT_ONCE < history.length) {
    more.append(button(`Older revisions (${history.length - from - SHOWN_AT_ONCE} more)`,
      () => showMore(history, from + SHOWN_AT_ONCE, parts)));
  }
  fillOperations(id, rows, signal);
}

/** Fills in each shown revision's operation (its lineage), a few reads at a time. */
async function fillOperations(id, rows, signal) {
  await pooled(rows, 4, async (row) => {
    const number = int(row.dataset.revision);
    const slot = row.querySelector('.operation');
    try {
      const answer = await call('GetMemory', {
        memory: { artifactId: id, revision: String(number) }, metadataOnly: true,
      }, { signal });
      slot.textContent = (answer.lineage && answer.lineage.operation) || '?';
      await describeTouched(id, number, row, signal);
    } catch (error) {
      if (error.name !== 'AbortError') slot.textContent = `(${error.code || 'error'})`;
    }
  });
}

/** Puts each shown change's entry description beside its id: the new version's (read at the
 * revision), or for a deactivation the version it retired. */
async function describeTouched(id, number, row, signal) {
  const slots = [...row.querySelectorAll('.touched')];
  const cited = slots.map((slot) => (slot.dataset.to
    ? citation(id, number, slot.dataset.entry, slot.dataset.to)
    : citation(id, number, slot.dataset.entry, slot.dataset.from)));
  if (!cited.length) return;
  const answer = await call('Expand', { citations: cited }, { signal });
  (answer.entries || []).forEach((expanded, i) => {
    slots[i].replaceChildren(untrusted(expanded.version.description || expanded.version.text, 'touched-text'));
  });
}

function revisionRow(id, revision) {
  const number = int(revision.memoryRef.revision);
  const changes = revision.changes || [];
  const counts = {};
  for (const change of changes) {
    const op = enumName(change.op, 'CHANGE_OP_');
    counts[op] = (counts[op] || 0) + 1;
  }
  const summary = Object.entries(counts).map(([op, n]) => `${n} ${op}`).join(', ') || 'no changes';
  const shown = changes.slice(0, CHANGES_SHOWN).map((change) => changeLine(id, change));
  const row = el('li', { class: 'revision', dataset: { revision: String(number) } },
    el('div', { class: 'revision-head' },
      el('strong', {}, `Revision ${number}`), ' ',
      el('span', { class: 'operation' }, '…'), ' ',
      el('time', { title: revision.committedAt || '' }, when(revision.committedAt)), ' · ',
      summary, ' · ',
      link(href(['m', id, 'rev', number]), 'diff'), ' · ',
      link(href(['m', id], { rev: number }), 'entries as of this revision')),
    el('ul', { class: 'changes' }, shown,
      changes.length > CHANGES_SHOWN ? el('li', { class: 'muted' }, `… ${changes.length - CHANGES_SHOWN} more in the diff`) : null));
  return row;
}

export function changeLine(id, change) {
  return el('li', { class: 'change' },
    el('span', { class: `op ${enumName(change.op, 'CHANGE_OP_')}` }, enumName(change.op, 'CHANGE_OP_')), ' ',
    link(href(['m', id, 'entry', change.entryId]), untrusted(change.entryId, 'id')), ' ',
    el('span', { class: 'touched muted', dataset: { entry: change.entryId,
      to: change.toEntryVersionId || '', from: change.fromEntryVersionId || '' } }),
    change.mergedIntoEntryId ? el('span', {}, ' merged into ',
      link(href(['m', id, 'entry', change.mergedIntoEntryId]), untrusted(change.mergedIntoEntryId, 'id'))) : null,
    change.reason ? el('span', { class: 'reason' }, ' — ', untrusted(change.reason, 'reason')) : null);
}
