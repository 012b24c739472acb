// One entry's history and lineage: every version (walked back through previous_version_id with
// Expand), every change of its state with the revision's operation and evidence, the merges it
// came from or went into, and the curation its state allows.

import { call, collect, pooled } from '../api.js';
import { button, el, fill, link, section, untrusted } from '../dom.js';
import { showError } from '../errors.js';
import { enumName, int, STATUS, when } from '../format.js';
import { citation } from '../refs.js';
import { href, render } from '../router.js';
import { memoryHeader, openSession } from '../session.js';
import { forgetDialog, reactivateDialog, restoreDialog, reviseDialog } from './curation.js';
import { sourceRefList } from './sources.js';
import { citationLine, versionCard } from './version.js';

const MAX_VERSIONS = 500;

export async function historyView({ id, entryId, outlet, signal }) {
  const session = openSession(id);
  const status = el('div', { class: 'status' }, 'Loading…');
  outlet.append(status);
  try {
    await session.ready;
    const head = session.head;
    const messages = await collect('Changes', {
      memory: { artifactId: id, revision: String(head) }, sinceRevision: '0',
    }, { signal });
    const events = [];
    const foldedIn = new Map(); // revision -> entry ids merged into this entry there
    for (const { revision } of messages.filter((m) => m.revision)) {
      const number = int(revision.memoryRef.revision);
      for (const change of revision.changes || []) {
        if (change.entryId === entryId) events.push({ revision: number, at: revision.committedAt, change });
        if (change.mergedIntoEntryId === entryId) {
          foldedIn.set(number, [...(foldedIn.get(number) || []), change.entryId]);
        }
      }
    }
    if (!events.length) {
      status.replaceChildren(el('div', { class: 'error' }, `No entry ${entryId} in this memory's history.`));
      return;
    }
    const last = events[events.length - 1].change;
    const currentVersionId = last.toEntryVersionId || last.fromEntryVersionId;
    const versions = await walkVersions(id, head, entryId, currentVersionId, signal);
    const lineages = await pooled(events, 4, (event) => call('GetMemory', {
      memory: { artifactId: id, revision: String(event.revision) }, metadataOnly: true,
    }, { signal }));
    const current = versions[0];
    const entryStatus = current.state !== 'ENTRY_STATE_ACTIVE'
      ? (last.mergedIntoEntryId ? STATUS.MERGED : STATUS.INACTIVE) : STATUS.ACTIVE;
    const bornByMerge = foldedIn.has(events[0].revision);
    fill(outlet,
      memoryHeader(session, '', signal),
      el('h2', {}, 'Entry ', untrusted(entryId, 'id'), ' ',
        el('span', { class: `state ${enumName(entryStatus, 'ENTRY_STATUS_')}` }, enumName(entryStatus, 'ENTRY_STATUS_'))),
      last.mergedIntoEntryId ? el('p', {}, 'Merged into ',
        link(href(['m', id, 'entry', last.mergedIntoEntryId]), untrusted(last.mergedIntoEntryId, 'id'))) : null,
      bornByMerge ? el('p', {}, 'Made by merging ',
        foldedIn.get(events[0].revision).map((input) => [link(href(['m', id, 'entry', input]), untrusted(input, 'id')), ' '])) : null,
      citationLine(current.citation),
      actions({ id, head, entryId, current, entryStatus, bornByMerge }),
      section(`Versions (${versions.length})`, versions.map((expanded, index) => el('div', { class: 'version-slot' },
        versionCard(expanded, { title: index === 0 ? 'Current version' : `Version ${int(expanded.version.version)}` }),
        index > 0 ? button('Restore this version…', () => restoreDialog({
          artifactId: id, operation: 'restore', entryId,
          entryVersionId: expanded.version.entryVersionId, onDone: () => render(),
        }), { class: 'small restore-version' }) : null))),
      section('Lineage', el('ol', { class: 'lineage' }, events.map((event, i) => lineageItem(id, event, lineages[i], foldedIn)))));
  } catch (error) {
    showError(status, error, { what: `Reading the history of ${entryId}` });
  }
}

/** The current version, then each previous one: it is in the manifest of the revision before
 * the one that created its successor. */
async function walkVersions(id, head, entryId, versionId, signal) {
  const found = [];
  let cited = citation(id, head, entryId, versionId);
  while (cited && found.length < MAX_VERSIONS) {
    const answer = await call('Expand', { citations: [cited] }, { signal });
    const expanded = answer.entries[0];
    found.push(expanded);
    const { previousVersionId, createdInRevision } = expanded.version;
    cited = previousVersionId
      ? citation(id, int(createdInRevision) - 1, entryId, previousVersionId) : null;
  }
  return found;
}

function actions({ id, head, entryId, current, entryStatus, bornByMerge }) {
  const version = current.version;
  const listed = {
    citation: citation(id, head, entryId, version.entryVersionId), kind: version.kind,
    text: version.text, description: version.description, tags: version.tags, status: entryStatus,
  };
  const done = () => render();
  const base = { artifactId: id, base: head, onDone: done };
  return el('div', { class: 'actions' },
    entryStatus === STATUS.ACTIVE ? button('Revise…', () => reviseDialog({ ...base, entry: listed })) : null,
    entryStatus === STATUS.ACTIVE ? button('Forget…', () => forgetDialog({ ...base, entries: [listed] })) : null,
    entryStatus === STATUS.INACTIVE ? button('Reactivate…', () => reactivateDialog({ ...base, entries: [listed] })) : null,
    entryStatus !== STATUS.ACTIVE ? button('Restore…', () => restoreDialog({
      artifactId: id, operation: 'restore', entryId, onDone: done })) : null,
    bornByMerge && entryStatus === STATUS.ACTIVE ? button('Undo merge…', () => restoreDialog({
      artifactId: id, operation: 'undo_merge', entryId, onDone: done })) : null);
}

function lineageItem(id, event, memory, foldedIn) {
  const { change } = event;
  const lineage = memory.lineage || {};
  const inputs = foldedIn.get(event.revision);
  return el('li', { class: 'lineage-event', dataset: { revision: String(event.revision) } },
    el('div', {},
      link(href(['m', id, 'rev', event.revision]), `Revision ${event.revision}`), ' ',
      untrusted(lineage.operation || '?', 'operation'), ' · ', when(event.at), ' · ',
      el('span', { class: `op ${enumName(change.op, 'CHANGE_OP_')}` }, enumName(change.op, 'CHANGE_OP_')),
      change.fromEntryVersionId ? el('span', { class: 'muted' }, ' from ', untrusted(change.fromEntryVersionId, 'id')) : null,
      change.toEntryVersionId ? el('span', { class: 'muted' }, ' to ', untrusted(change.toEntryVersionId, 'id')) : null,
      change.mergedIntoEntryId ? el('span', {}, ' merged into ', untrusted(change.mergedIntoEntryId, 'id')) : null,
      inputs && change.op === 'CHANGE_OP_ADD' ? el('span', {}, ' from ', inputs.map((input) => untrusted(`${input} `, 'id'))) : null,
      change.reason ? el('span', { class: 'reason' }, ' — ', untrusted(change.reason, 'reason')) : null),
    (lineage.sources || []).length ? sourceRefList(lineage.sources, 'Evidence of this operation') : null);
}
