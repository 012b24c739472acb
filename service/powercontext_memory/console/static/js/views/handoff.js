// Handoff: citations picked from entries, hits or pasted, each verified with Expand, grouped by
// kind into a human-readable note whose every line links to its verified version.

import { call } from '../api.js';
import { drop, empty, pick, picked } from '../basket.js';
import { button, el, field, link, untrusted } from '../dom.js';
import { errorView } from '../errors.js';
import { citationLines, formatCitation, parseCitation } from '../refs.js';
import { href, render } from '../router.js';
import { closeSession } from '../session.js';

// Rules first, as PrepareContext orders them; other kinds follow alphabetically.
const KIND_ORDER = ['constraint', 'preference', 'decision', 'fact', 'working_note'];

export async function handoffView({ outlet, signal }) {
  closeSession();
  const items = picked();
  const paste = el('textarea', { name: 'paste', rows: 3, cols: 90, placeholder: 'paste citations, one per line' });
  const note = el('div', { class: 'handoff' });
  outlet.append(
    el('h1', {}, 'Handoff'),
    el('form', { class: 'filters', onsubmit: (event) => {
      event.preventDefault();
      for (const text of citationLines(paste.value)) pick(text);
      render();
    } }, field('Add citations', paste), el('button', { type: 'submit' }, 'Add')),
    el('ul', { class: 'picked' }, items.map((text) => el('li', {}, untrusted(text, 'cite-text'), ' ',
      button('Remove', () => {
        drop(text);
        render();
      }, { class: 'small' })))),
    items.length ? button('Clear all', () => {
      empty();
      render();
    }) : el('p', { class: 'muted' }, 'Nothing picked yet: use "Add to handoff" on entries, search hits or verified citations.'),
    note);
  if (!items.length) return;
  note.append(el('div', { class: 'status' }, 'Verifying…'));
  const verified = [];
  const failed = [];
  for (const text of items) {
    try {
      const answer = await call('Expand', { citations: [parseCitation(text)] }, { signal });
      verified.push(answer.entries[0]);
    } catch (error) {
      if (error.name === 'AbortError') return;
      failed.push({ text, error });
    }
  }
  note.replaceChildren(...handoffNote(verified, failed));
}

function grouped(verified) {
  const groups = new Map();
  for (const item of verified) {
    const kind = item.version.kind || '(no kind)';
    groups.set(kind, [...(groups.get(kind) || []), item]);
  }
  const rank = (kind) => (KIND_ORDER.includes(kind) ? KIND_ORDER.indexOf(kind) : KIND_ORDER.length);
  return [...groups.entries()].sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function handoffNote(verified, failed) {
  const groups = grouped(verified);
  const plain = [];
  const parts = [el('h2', {}, `Handoff: ${verified.length} verified ${verified.length === 1 ? 'entry' : 'entries'}`)];
  for (const [kind, items] of groups) {
    plain.push(`## ${kind}`);
    parts.push(el('h3', { class: 'handoff-kind' }, untrusted(kind, 'kind')));
    parts.push(el('ul', { class: 'handoff-lines' }, items.map((item) => {
      const text = formatCitation(item.citation);
      plain.push(`- ${item.version.text} (${text})`);
      return el('li', { class: 'handoff-line' }, untrusted(item.version.text, 'entry-line'), ' ',
        link(href(['cite'], { c: text }), 'verified version', { class: 'small' }));
    })));
  }
  if (failed.length) {
    parts.push(el('h3', {}, 'Could not verify'));
    parts.push(el('ul', { class: 'handoff-failed' }, failed.map(({ text, error }) => el('li', {},
      untrusted(text, 'cite-text'), errorView(error, { what: 'Not verified' })))));
  }
  parts.push(el('h3', {}, 'As text'),
    el('textarea', { class: 'handoff-text', rows: 10, cols: 100, readonly: true, value: plain.join('\n') }));
  return parts;
}
