// The memories the caller may see (ListMemories, a page at a time), each with its label, counts
// and newest change; labels are set here with their compare-and-swap version.

import { call } from '../api.js';
import { button, el, field, link, section, untrusted } from '../dom.js';
import { errorView, showError } from '../errors.js';
import { int, when } from '../format.js';
import { go, href } from '../router.js';
import { closeSession } from '../session.js';

export async function memoriesView({ outlet, signal }) {
  closeSession();
  const status = el('div', { class: 'status' }, 'Loading memories…');
  const body = el('tbody');
  const more = el('div');
  outlet.append(
    el('h1', {}, 'Memories'),
    openById(),
    section('All memories',
      el('table', { class: 'memories' },
        el('thead', {}, el('tr', {}, ['Label', 'Memory', 'Head', 'Active', 'Inactive',
          'Last operation', 'Last change', 'Created'].map((h) => el('th', {}, h)))),
        body),
      status, more));
  await loadPage('', { body, status, more, signal });
}

function openById() {
  const input = el('input', { name: 'memory', placeholder: 'mem_art_…', size: 40, required: true });
  const form = el('form', { class: 'inline', onsubmit: (event) => {
    event.preventDefault();
    go(['m', input.value.trim()]);
  } }, field('Open a memory by id', input), el('button', { type: 'submit' }, 'Open'));
  return form;
}

async function loadPage(pageToken, parts) {
  const { body, status, more, signal } = parts;
  try {
    const page = await call('ListMemories', { pageSize: 50, pageToken }, { signal });
    const memories = page.memories || [];
    for (const summary of memories) body.append(memoryRow(summary));
    status.textContent = body.children.length ? '' : 'No memories yet.';
    more.replaceChildren();
    if (page.nextPageToken) {
      more.append(button('More memories', () => loadPage(page.nextPageToken, parts)));
    }
  } catch (error) {
    if (error.code === 'unimplemented') {
      status.replaceChildren(errorView(error, { what: 'Listing memories' }),
        el('p', {}, 'Open a memory by its id above instead.'));
    } else {
      showError(status, error, { what: 'Listing memories' });
    }
  }
}

function memoryRow(summary) {
  const head = summary.head || {};
  const id = head.artifactId;
  const labelCell = el('td', { class: 'label-cell' });
  const row = el('tr', { dataset: { memory: id } }, labelCell);
  showLabel(labelCell, summary);
  for (const cell of [
    link(href(['m', id]), untrusted(id, 'id'), { class: 'memory-link' }),
    String(int(head.revision)),
    String(int(summary.activeEntries)),
    String(int(summary.inactiveEntries)),
    untrusted(summary.lastOperation || ''),
    el('time', { title: summary.changedAt || '' }, when(summary.changedAt)),
    el('time', { title: summary.createdAt || '' }, when(summary.createdAt)),
  ]) row.append(el('td', {}, cell));
  return row;
}

function showLabel(cell, summary) {
  const label = summary.label
    ? untrusted(summary.label, 'label')
    : el('span', { class: 'muted label' }, '(no label)');
  cell.replaceChildren(label, ' ', button('Edit', () => editLabel(cell, summary), { class: 'small' }));
}

function editLabel(cell, summary) {
  const input = el('input', { name: 'label', value: summary.label || '', maxlength: 200, size: 30 });
  const message = el('div');
  const form = el('form', { class: 'inline label-form', onsubmit: async (event) => {
    event.preventDefault();
    try {
      const answer = await call('SetMemoryLabel', {
        memoryId: summary.head.artifactId, label: input.value,
        labelVersion: String(int(summary.labelVersion)),
      });
      summary.label = answer.label || '';
      summary.labelVersion = answer.labelVersion || '0';
      showLabel(cell, summary);
    } catch (error) {
      showError(message, error, { what: 'Setting the label' });
    }
  } },
  input, el('button', { type: 'submit', class: 'primary' }, 'Save'),
  button('Cancel', () => showLabel(cell, summary)),
  el('span', { class: 'muted' }, ` replaces label version ${int(summary.labelVersion)}`), message);
  cell.replaceChildren(form);
  input.focus();
}
