// Evidence: source refs (id and hash) that open the stored Source on click (GetSource, which
// verifies its hash), its content shown as text whatever its media type; a large source shows
// its first SHOWN_BYTES and says how much it holds.

import { call } from '../api.js';
import { block, button, el, facts, untrusted } from '../dom.js';
import { showError } from '../errors.js';
import { int, when } from '../format.js';

const SHOWN_BYTES = 256 * 1024;

/** A list of SourceRefs; clicking one shows the source below the list. */
export function sourceRefList(refs, title = 'Sources') {
  const list = refs || [];
  if (!list.length) return el('div', { class: 'muted sources' }, `${title}: none`);
  const viewer = el('div', { class: 'source-viewer' });
  const items = list.map((ref) => el('li', {},
    button(untrusted(ref.sourceId, 'id'), () => showSource(viewer, ref), { class: 'link source-ref' }),
    ' ', el('span', { class: 'hash u' }, ref.contentHash || '')));
  return el('div', { class: 'sources' }, el('div', { class: 'muted' }, `${title}:`), el('ul', {}, items), viewer);
}

/** Artifact refs (memory revisions used as evidence), as text. */
export function artifactRefList(refs) {
  const list = refs || [];
  if (!list.length) return null;
  return el('div', { class: 'sources' }, el('span', { class: 'muted' }, 'Artifacts: '),
    list.map((ref) => untrusted(`${ref.artifactId}@${ref.revision || 0} `, 'id')));
}

async function showSource(viewer, ref) {
  viewer.replaceChildren(el('div', { class: 'status' }, 'Reading the source…'));
  try {
    const answer = await call('GetSource', { sourceId: ref.sourceId, contentLimit: SHOWN_BYTES });
    viewer.replaceChildren(sourceCard(answer.source, ref, answer));
  } catch (error) {
    showError(viewer, error, { what: `Reading ${ref.sourceId}` });
  }
}

function decoded(base64) {
  const binary = atob(base64 || '');
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

export function sourceCard(source, ref = {}, chunk = {}) {
  const metadata = Object.entries(source.metadata || {});
  const matches = !ref.contentHash || ref.contentHash === source.contentHash;
  return el('div', { class: 'source-card', dataset: { source: source.sourceId } },
    facts([
      ['Source', untrusted(source.sourceId, 'id')],
      ['Kind', untrusted(source.kind || '', 'source-kind')],
      ['URI', source.uri ? untrusted(source.uri, 'uri') : null],
      ['Media type', source.mediaType ? untrusted(source.mediaType, 'media-type') : null],
      ['Hash', el('span', { class: matches ? 'ok' : 'bad' },
        untrusted(source.contentHash, 'hash'),
        matches ? ' (verified by the server; matches the cited hash)' : ' (differs from the cited hash)')],
      ['Stored', when(source.createdAt)],
      ['Size', chunk.contentTruncated
        ? `${int(chunk.contentSize)} bytes; the first ${SHOWN_BYTES} are shown`
        : null],
      ['Metadata', metadata.length ? el('ul', { class: 'metadata' },
        metadata.map(([key, value]) => el('li', {}, untrusted(key, 'key'), ' = ', untrusted(value)))) : null],
    ]),
    block(decoded(source.content), 'source-content'));
}
