// Citation check: pasted citations are expanded one by one; the server verifies each version
// against its revision and hash, and the page shows the exact version or the precise error.

import { call } from '../api.js';
import { el, field, untrusted } from '../dom.js';
import { errorView } from '../errors.js';
import { CitationSyntaxError, citationLines, formatCitation, parseCitation } from '../refs.js';
import { go } from '../router.js';
import { closeSession } from '../session.js';
import { versionCard } from './version.js';

export async function citeView({ params, outlet, signal }) {
  closeSession();
  const given = params.getAll('c').flatMap(citationLines);
  const input = el('textarea', { name: 'citations', rows: 4, cols: 90, value: given.join('\n'),
    placeholder: 'mem_art_…@3/mem_ent_…/mem_ver_… (one per line)' });
  const results = el('div', { class: 'citation-results' });
  outlet.append(
    el('h1', {}, 'Check citations'),
    el('form', { class: 'filters', onsubmit: (event) => {
      event.preventDefault();
      go(['cite'], { c: citationLines(input.value) });
    } }, field('Citations', input), el('button', { type: 'submit', class: 'primary' }, 'Check')),
    results);
  for (const text of given) {
    const slot = el('section', { class: 'citation-result panel' }, el('h2', {}, untrusted(text, 'cite-text')),
      el('div', { class: 'status' }, 'Verifying…'));
    results.append(slot);
    slot.append(await checked(text, signal));
    slot.querySelector('.status').remove();
  }
}

/** The verified version for one citation text, or why it cannot be verified. */
export async function checked(text, signal) {
  let cited;
  try {
    cited = parseCitation(text);
  } catch (error) {
    if (!(error instanceof CitationSyntaxError)) throw error;
    return el('div', { class: 'error mismatch', role: 'alert', dataset: { code: 'syntax' } }, error.message);
  }
  try {
    const answer = await call('Expand', { citations: [cited] }, { signal });
    const expanded = answer.entries[0];
    return el('div', { class: 'verified' },
      el('div', { class: 'ok verified-by-hash' },
        el('strong', {}, 'Verified by hash'),
        ' — the server read this exact version of ', untrusted(formatCitation(expanded.citation), 'cite-text'),
        ' and checked its entry content hash ', untrusted(expanded.version.entryContentHash, 'hash'), '.'),
      versionCard(expanded));
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    return el('div', { class: 'mismatch' }, errorView(error, { what: 'Not verified' }));
  }
}
