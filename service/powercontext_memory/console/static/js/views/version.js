// One exact entry version (an Expand answer) as a card, and the small pieces entry views share:
// the citation line with its actions, and the handoff button.

import { pick } from '../basket.js';
import { block, button, chips, el, facts, link, untrusted } from '../dom.js';
import { enumName, int } from '../format.js';
import { formatCitation } from '../refs.js';
import { href } from '../router.js';
import { artifactRefList, sourceRefList } from './sources.js';

export function handoffButton(citation) {
  const text = formatCitation(citation);
  const control = button('Add to handoff', () => {
    pick(text);
    control.textContent = 'In handoff';
    control.disabled = true;
  }, { class: 'small handoff-add' });
  return control;
}

export function citationLine(citation) {
  const text = formatCitation(citation);
  return el('div', { class: 'citation' },
    untrusted(text, 'cite-text'), ' ',
    link(href(['cite'], { c: text }), 'verify', { class: 'small' }), ' ',
    link(href(['m', citation.memoryRef.artifactId, 'entry', citation.entryId]), 'history',
      { class: 'small' }), ' ',
    handoffButton(citation));
}

/** An ExpandedEntry ({citation, version, state}) or a bare version, with its evidence. */
export function versionCard(expanded, { title = null } = {}) {
  const version = expanded.version || expanded;
  const state = expanded.state ? enumName(expanded.state, 'ENTRY_STATE_') : null;
  return el('article', { class: 'version', dataset: { version: version.entryVersionId } },
    title ? el('h3', {}, title) : null,
    el('div', { class: 'kind-line' },
      untrusted(version.kind, 'kind'), ' ',
      chips(version.tags),
      state ? el('span', { class: `state ${state}` }, state) : null,
      state && expanded.citation
        ? el('span', { class: 'muted' }, ` at revision ${int(expanded.citation.memoryRef.revision)}`) : null),
    block(version.text, 'entry-text'),
    version.description ? el('div', { class: 'description' }, untrusted(version.description)) : null,
    facts([
      ['Version', `${int(version.version)} · ${version.entryVersionId}`],
      ['Entry', untrusted(version.entryId, 'id')],
      ['Created in', `revision ${int(version.createdInRevision)}`],
      ['Previous', version.previousVersionId ? untrusted(version.previousVersionId, 'id') : null],
      ['Content hash', untrusted(version.entryContentHash, 'hash')],
    ]),
    sourceRefList(version.sourceRefs),
    artifactRefList(version.artifactRefs),
    expanded.citation ? citationLine(expanded.citation) : null);
}
