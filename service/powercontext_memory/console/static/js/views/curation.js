// Curation: forget, reactivate, revise, merge, restore and undo-merge. Each shows exactly what
// will change before its commit button; every write names the revision the view was loaded at
// (compare-and-swap), and restore/undo-merge commit only the plan their preview showed.

import { call } from '../api.js';
import { block, button, chips, el, facts, field, untrusted } from '../dom.js';
import { errorView } from '../errors.js';
import { enumName, int, listField, when } from '../format.js';
import { citation } from '../refs.js';

function dialog(title, ...content) {
  const body = el('div', { class: 'dialog-body' }, ...content);
  const box = el('dialog', { class: 'curation', 'aria-label': title },
    el('h2', {}, title), body, el('div', { class: 'dialog-close' }, button('Close', () => box.close())));
  box.addEventListener('close', () => box.remove());
  document.body.append(box);
  box.showModal();
  return { box, body };
}

function entryLine(entry) {
  const ref = entry.citation || entry;
  return el('li', { class: 'change-item', dataset: { entry: ref.entryId } },
    untrusted(entry.kind || '', 'kind'), ' ', chips(entry.tags), ' ',
    untrusted(`${ref.entryId} @ ${ref.entryVersionId}`, 'id'),
    entry.text !== undefined ? block(entry.text, 'entry-text') : null);
}

function reasonInput() {
  return el('input', { name: 'reason', maxlength: 512, size: 50, placeholder: 'why (optional, kept in history)' });
}

/** The commit step: runs `write`, then shows the new revision or the error. */
function commitRow(label, write, onDone) {
  const outcome = el('div', { class: 'outcome' });
  const commit = button(label, async () => {
    commit.disabled = true;
    outcome.replaceChildren(el('span', { class: 'status' }, 'Committing…'));
    try {
      const answer = await write();
      outcome.replaceChildren(committed(answer));
      if (onDone) onDone(answer);
    } catch (error) {
      outcome.replaceChildren(errorView(error, { what: label }));
    }
  }, { class: 'primary commit' });
  return el('div', { class: 'commit-row' }, commit, outcome);
}

function committed(answer) {
  const ref = answer.memory || {};
  const changes = answer.changes || [];
  if (answer.changed === false) {
    return el('div', { class: 'ok done' }, `Nothing changed: the memory stays at revision ${int(ref.revision)}.`);
  }
  return el('div', { class: 'ok done' },
    el('strong', {}, `Committed revision ${int(ref.revision)}.`),
    el('ul', {}, changes.map((change) => el('li', {},
      `${enumName(change.op, 'CHANGE_OP_')} `, untrusted(change.entryId, 'id'),
      change.reason ? el('span', {}, ' — ', untrusted(change.reason, 'reason')) : null))));
}

function memoryRef(artifactId, base) {
  return { artifactId, revision: String(base) };
}

function refsOf(entries) {
  return entries.map((e) => ({ entryId: e.citation.entryId, entryVersionId: e.citation.entryVersionId }));
}

export function forgetDialog({ artifactId, base, entries, onDone }) {
  const reason = reasonInput();
  dialog(`Forget ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`,
    el('p', {}, `These entries become inactive in a new revision after revision ${base}; `
      + 'their versions and citations stay readable, and they can be reactivated:'),
    el('ul', { class: 'change-list' }, entries.map(entryLine)),
    field('Reason', reason),
    commitRow('Forget', () => call('Forget', {
      memory: memoryRef(artifactId, base), entries: refsOf(entries), reason: reason.value || undefined,
    }), onDone));
}

export function reactivateDialog({ artifactId, base, entries, onDone }) {
  const reason = reasonInput();
  dialog(`Reactivate ${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`,
    el('p', {}, `These entries become active again, at the same versions, after revision ${base}:`),
    el('ul', { class: 'change-list' }, entries.map(entryLine)),
    field('Reason', reason),
    commitRow('Reactivate', () => call('Reactivate', {
      memory: memoryRef(artifactId, base), entries: refsOf(entries), reason: reason.value || undefined,
    }), onDone));
}

/** Revising an entry is Remember with the entry's current version named (a new version). */
export function reviseDialog({ artifactId, base, entry, onDone }) {
  const kind = el('input', { name: 'kind', value: entry.kind, size: 20 });
  const text = el('textarea', { name: 'text', rows: 6, cols: 70, value: entry.text || '' });
  const description = el('input', { name: 'description', value: entry.description || '', size: 60 });
  const tags = el('input', { name: 'tags', value: (entry.tags || []).join(', '), size: 50 });
  const reason = reasonInput();
  dialog('Revise entry',
    el('p', {}, 'Old version (stays readable and citable):'),
    el('ul', { class: 'change-list' }, entryLine(entry)),
    field('Kind', kind), field('Text', text), field('Description', description),
    field('Tags (comma separated)', tags), field('Reason', reason),
    commitRow('Save new version', () => call('Remember', {
      memory: memoryRef(artifactId, base),
      mode: 'REMEMBER_MODE_APPEND',
      entries: [{
        entry: { entryId: entry.citation.entryId, entryVersionId: entry.citation.entryVersionId },
        kind: kind.value, text: text.value, description: description.value || undefined,
        tags: listField(tags.value), reason: reason.value || undefined,
      }],
    }), onDone));
}

export function mergeDialog({ artifactId, base, entries, onDone }) {
  const kind = el('input', { name: 'kind', value: entries[0].kind, size: 20 });
  const text = el('textarea', { name: 'text', rows: 6, cols: 70,
    value: entries.map((e) => e.text || '').join('\n') });
  const description = el('input', { name: 'description', size: 60, placeholder: 'derived from the text when empty' });
  const tags = el('input', { name: 'tags', size: 50, placeholder: 'empty: the union of the inputs\' tags' });
  const reason = reasonInput();
  const confirm = el('div');
  const { body } = dialog(`Merge ${entries.length} entries`,
    el('p', {}, 'Inputs (each becomes merged: inactive, pointing at the new entry):'),
    el('ul', { class: 'change-list' }, entries.map(entryLine)),
    field('Kind', kind), field('Merged text', text), field('Description', description),
    field('Tags (comma separated)', tags), field('Reason', reason),
    button('Review merge', () => {
      confirm.replaceChildren(
        el('h3', {}, 'This merge will'),
        el('ul', { class: 'change-list' },
          el('li', {}, `add one new ${kind.value} entry with the text:`, block(text.value, 'entry-text')),
          entries.map((e) => el('li', {}, 'mark merged: ', untrusted(`${e.citation.entryId} @ ${e.citation.entryVersionId}`, 'id')))),
        commitRow('Merge', () => call('Merge', {
          memory: memoryRef(artifactId, base), inputs: refsOf(entries),
          kind: kind.value, text: text.value, description: description.value || undefined,
          tags: listField(tags.value), reason: reason.value || undefined,
        }), onDone));
    }, { class: 'review' }),
    confirm);
  return body;
}

/** Restore (operation RESTORE) or undo-merge: preview first, then commit with its token. */
export async function restoreDialog({ artifactId, operation, entryId, entryVersionId, onDone }) {
  const undo = operation === 'undo_merge';
  const { body } = dialog(undo ? 'Undo merge' : 'Restore entry',
    el('div', { class: 'status' }, 'Previewing…'));
  try {
    const preview = await call('PreviewRestore', {
      memory: { artifactId, revision: '0' },
      operation: undo ? 'RESTORE_OPERATION_UNDO_MERGE' : 'RESTORE_OPERATION_RESTORE',
      entryId, entryVersionId: entryVersionId || undefined,
    });
    body.replaceChildren(await previewView(preview, { artifactId, entryVersionId }));
    if (!preview.wouldChange) return;
    const reason = reasonInput();
    const base = preview.memory.revision;
    const request = {
      memory: memoryRef(artifactId, base), entryId, previewToken: preview.previewToken,
      reason: reason.value || undefined,
    };
    body.append(field('Reason', reason), commitRow(undo ? 'Undo merge' : 'Restore', () => {
      request.reason = reason.value || undefined;
      if (undo) return call('UndoMerge', request);
      return call('Restore', { ...request, entryVersionId: entryVersionId || undefined });
    }, onDone));
  } catch (error) {
    body.replaceChildren(errorView(error, { what: undo ? 'Previewing the undo' : 'Previewing the restore' }));
  }
}

async function previewView(preview, { artifactId, entryVersionId }) {
  const outcome = preview.outcome || {};
  const head = int(preview.memory.revision);
  const refs = [...(outcome.restored || []), ...(outcome.retired || [])];
  const texts = new Map();
  if (refs.length) {
    const expanded = await call('Expand', {
      citations: refs.map((r) => citation(artifactId, head, r.entryId, r.entryVersionId)),
    });
    for (const item of expanded.entries || []) texts.set(item.citation.entryId, item.version);
  }
  const line = (ref) => {
    const version = texts.get(ref.entryId) || {};
    return entryLine({ citation: ref, kind: version.kind, tags: version.tags, text: version.text });
  };
  return el('div', { class: 'preview' },
    el('p', {}, `Preview of head revision ${head}`
      + (preview.wouldChange ? ': applying will' : ': applying would change nothing.')),
    preview.wouldChange ? facts([
      ['Bring back (active)', el('ul', { class: 'change-list restored' }, (outcome.restored || []).map(line))],
      ['Retire (inactive)', (outcome.retired || []).length
        ? el('ul', { class: 'change-list retired' }, outcome.retired.map(line)) : 'nothing'],
      ['Merges undone', (outcome.undoneMergeResults || []).length
        ? el('ul', {}, outcome.undoneMergeResults.map((id) => el('li', {}, untrusted(id, 'id')))) : 'none'],
      ['As version', entryVersionId ? untrusted(entryVersionId, 'id') : null],
      ['Preview valid until', when(preview.expiresAt)],
    ]) : null);
}
