// A memory's entries at its head or, travelling in time, at any revision (ListEntries with text,
// filtered by status, kind and tags), with the curation actions each entry allows at the head.

import { call } from '../api.js';
import { block, button, chips, el, field, link, untrusted } from '../dom.js';
import { showError } from '../errors.js';
import { enumName, int, listField, STATUS } from '../format.js';
import { go, href, render } from '../router.js';
import { memoryHeader, openSession } from '../session.js';
import { forgetDialog, mergeDialog, reactivateDialog, restoreDialog, reviseDialog } from './curation.js';
import { sourceRefList } from './sources.js';
import { citationLine } from './version.js';

const PAGE_SIZE = 50;

export async function entriesView({ id, params, outlet, signal }) {
  const session = openSession(id);
  const status = el('div', { class: 'status' }, 'Loading…');
  outlet.append(status);
  const asOf = int(params.get('rev'));
  const filters = {
    statuses: params.getAll('status').filter((s) => Object.values(STATUS).includes(s)),
    kinds: listField(params.get('kind')),
    tags: listField(params.get('tag')),
    tagMatch: params.get('any') ? 'TAG_MATCH_ANY' : 'TAG_MATCH_ALL',
  };
  if (!filters.statuses.length) filters.statuses = [STATUS.ACTIVE];
  const state = { id, asOf, filters, selected: new Map(), base: 0, session };
  // The first page is asked for while the memory opens: one round trip less to the first row.
  const firstPage = listPage(state, '', signal);
  firstPage.catch(() => {});
  try {
    await session.ready;
  } catch (error) {
    showError(status, error, { what: `Opening ${id}` });
    return;
  }
  const toolbar = el('div', { class: 'toolbar' });
  const rows = el('div', { class: 'entries' });
  const more = el('div');
  const banner = el('div', { class: 'banner-slot' });
  outlet.replaceChildren(memoryHeader(session, 'Entries', signal), filterForm(state), banner,
    toolbar, rows, more, status);
  status.textContent = 'Loading entries…';
  session.subscribe((kind, value) => {
    if (kind !== 'revision' || asOf) return;
    banner.replaceChildren(el('div', { class: 'banner live-banner' },
      `Revision ${int(value.memoryRef.revision)} arrived. `, button('Show the new head', () => render())));
  }, signal);
  await showPage(firstPage, '', { state, rows, more, status, toolbar, signal });
}

function listPage(state, pageToken, signal) {
  return call('ListEntries', {
    memory: { artifactId: state.id, revision: String(state.asOf) },
    pageSize: PAGE_SIZE, pageToken, statuses: state.filters.statuses, kinds: state.filters.kinds,
    tags: state.filters.tags, tagMatch: state.filters.tagMatch, includeText: true,
  }, { signal });
}

function filterForm(state) {
  const boxes = Object.entries(STATUS).map(([name, value]) => el('label', { class: 'check' },
    el('input', { type: 'checkbox', name: 'status', value, checked: state.filters.statuses.includes(value) }),
    ` ${name.toLowerCase()}`));
  const kind = el('input', { name: 'kind', value: state.filters.kinds.join(', '), size: 16 });
  const tag = el('input', { name: 'tag', value: state.filters.tags.join(', '), size: 16 });
  const any = el('input', { type: 'checkbox', name: 'any', checked: state.filters.tagMatch === 'TAG_MATCH_ANY' });
  const revision = el('input', { name: 'rev', type: 'number', min: 1, value: state.asOf || '', size: 6,
    placeholder: 'head' });
  return el('form', { class: 'filters', onsubmit: (event) => {
    event.preventDefault();
    go(['m', state.id], {
      status: boxes.map((b) => b.firstChild).filter((b) => b.checked).map((b) => b.value),
      kind: kind.value, tag: tag.value, any: any.checked ? '1' : '', rev: revision.value,
    });
  } },
  el('span', { class: 'group' }, boxes),
  field('Kinds', kind), field('Tags', tag), el('label', { class: 'check' }, any, ' any tag'),
  field('As of revision', revision),
  el('button', { type: 'submit' }, 'Show'));
}

async function showPage(pending, pageToken, parts) {
  const { state, rows, more, status, toolbar } = parts;
  try {
    const page = await pending;
    const revision = int(page.memory.revision);
    if (!pageToken) {
      state.base = revision;
      toolbar.replaceChildren(toolbarFor(state, revision));
    }
    for (const entry of page.entries || []) rows.append(entryRow(entry, state));
    status.textContent = rows.children.length ? '' : 'No entries match.';
    more.replaceChildren();
    if (page.nextPageToken) {
      more.append(button('More entries', () => showPage(listPage(state, page.nextPageToken, parts.signal),
        page.nextPageToken, parts), { class: 'more' }));
    }
  } catch (error) {
    showError(status, error, { what: 'Listing entries' });
  }
}

function toolbarFor(state, revision) {
  const atHead = !state.asOf;
  const prev = revision > 1 ? link(href(['m', state.id], { rev: revision - 1 }), `← revision ${revision - 1}`) : null;
  const next = state.asOf && revision < state.session.head
    ? link(href(['m', state.id], { rev: revision + 1 }), `revision ${revision + 1} →`) : null;
  const parts = [
    el('span', { class: atHead ? 'at-head' : 'time-travel' },
      atHead ? `At head, revision ${revision}` : `As of revision ${revision} (read only; head is ${state.session.head})`),
    ' ', prev, ' ', next, ' ', atHead ? null : link(href(['m', state.id]), 'back to head'),
  ];
  if (atHead) {
    const hint = el('span', { class: 'hint selection-hint' });
    const done = () => render();
    const withSelection = (status, minimum, open) => () => {
      const entries = [...state.selected.values()];
      if (entries.length < minimum || entries.some((e) => e.status !== status)) {
        hint.textContent = `Select at least ${minimum} ${enumName(status, 'ENTRY_STATUS_')} entries, and only those.`;
        return;
      }
      hint.textContent = '';
      open({ artifactId: state.id, base: revision, entries, onDone: done });
    };
    parts.push(el('span', { class: 'selection-actions' },
      button('Forget selected', withSelection(STATUS.ACTIVE, 1, forgetDialog)),
      button('Reactivate selected', withSelection(STATUS.INACTIVE, 1, reactivateDialog)),
      button('Merge selected', withSelection(STATUS.ACTIVE, 2, mergeDialog)), hint));
  }
  return el('div', {}, parts);
}

function entryRow(entry, state) {
  const ref = entry.citation;
  const status = enumName(entry.status, 'ENTRY_STATUS_');
  const atHead = !state.asOf;
  const evidence = el('div', { class: 'evidence' });
  const select = el('input', { type: 'checkbox', class: 'select', 'aria-label': 'select entry',
    onchange: () => (select.checked ? state.selected.set(ref.entryId, entry) : state.selected.delete(ref.entryId)) });
  const done = () => render();
  const base = { artifactId: state.id, base: state.base, onDone: done };
  const actions = [
    button('Sources', () => showEvidence(evidence, ref), { class: 'small' }),
    atHead && entry.status === STATUS.ACTIVE
      ? button('Revise', () => reviseDialog({ ...base, entry }), { class: 'small' }) : null,
    atHead && entry.status === STATUS.ACTIVE
      ? button('Forget', () => forgetDialog({ ...base, entries: [entry] }), { class: 'small' }) : null,
    atHead && entry.status === STATUS.INACTIVE
      ? button('Reactivate', () => reactivateDialog({ ...base, entries: [entry] }), { class: 'small' }) : null,
    atHead && entry.status !== STATUS.ACTIVE
      ? button('Restore…', () => restoreDialog({ artifactId: state.id, operation: 'restore',
        entryId: ref.entryId, onDone: done }), { class: 'small' }) : null,
  ];
  return el('article', { class: `entry ${status}`, dataset: { entry: ref.entryId, status } },
    el('div', { class: 'kind-line' },
      atHead ? select : null, ' ',
      untrusted(entry.kind, 'kind'), ' ', chips(entry.tags), ' ',
      el('span', { class: `state ${status}` }, status),
      entry.mergedIntoEntryId ? el('span', {}, ' into ',
        link(href(['m', state.id, 'entry', entry.mergedIntoEntryId]), untrusted(entry.mergedIntoEntryId, 'id'))) : null),
    block(entry.text, 'entry-text'),
    entry.description ? el('div', { class: 'description' }, untrusted(entry.description)) : null,
    el('div', { class: 'hash muted' }, 'hash ', untrusted(entry.entryContentHash, 'hash')),
    citationLine(ref),
    el('div', { class: 'actions' }, actions),
    evidence);
}

async function showEvidence(target, ref) {
  target.replaceChildren(el('span', { class: 'status' }, 'Reading evidence…'));
  try {
    const answer = await call('Expand', { citations: [ref] });
    const version = answer.entries[0].version;
    target.replaceChildren(sourceRefList(version.sourceRefs));
  } catch (error) {
    showError(target, error, { what: 'Reading evidence' });
  }
}
