// The search playground: one query run as full text, vector and hybrid side by side, each hit
// with its score and its rank in every channel that admitted it.

import { call } from '../api.js';
import { block, chips, el, fill, field, untrusted } from '../dom.js';
import { errorView } from '../errors.js';
import { enumName, listField } from '../format.js';
import { go } from '../router.js';
import { closeSession } from '../session.js';
import { citationLine } from './version.js';

const MODES = ['SEARCH_MODE_FTS', 'SEARCH_MODE_VECTOR', 'SEARCH_MODE_HYBRID'];

export async function searchView({ params, outlet, signal }) {
  closeSession();
  const query = params.get('q') || '';
  const memories = params.getAll('m');
  const queryInput = el('input', { name: 'q', value: query, size: 50, required: true, maxlength: 1000 });
  const memoryInput = el('input', { name: 'm', value: memories.join(', '), size: 50,
    placeholder: 'mem_art_…, mem_art_…', required: true });
  const limit = el('input', { name: 'limit', type: 'number', min: 1, max: 100, value: params.get('limit') || 8 });
  const capability = el('div', { class: 'muted capabilities' });
  const picks = el('div', { class: 'memory-picks' });
  const columns = el('div', { class: 'search-columns' });
  outlet.append(
    el('h1', {}, 'Search playground'),
    el('form', { class: 'filters', onsubmit: (event) => {
      event.preventDefault();
      go(['search'], { q: queryInput.value, m: listField(memoryInput.value), limit: limit.value });
    } }, field('Query', queryInput), field('Memories', memoryInput), field('Limit', limit),
    el('button', { type: 'submit', class: 'primary' }, 'Search')),
    picks, capability, columns);
  describeCapabilities(capability, signal);
  offerMemories(picks, memoryInput, signal);
  if (!query || !memories.length) return;
  const request = {
    query, memories: memories.map((artifactId) => ({ artifactId, revision: '0' })),
    limit: Number(limit.value) || 8,
  };
  const slots = MODES.map((mode) => {
    const slot = el('section', { class: 'search-column', dataset: { mode: enumName(mode, 'SEARCH_MODE_') } },
      el('h2', {}, enumName(mode, 'SEARCH_MODE_')), el('div', { class: 'status' }, 'Searching…'));
    columns.append(slot);
    return slot;
  });
  await Promise.all(MODES.map((mode, i) => runMode({ ...request, mode }, slots[i], signal)));
}

/** A checkbox per listed memory (the first 100), kept in step with the memories field. */
async function offerMemories(target, input, signal) {
  let page;
  try {
    page = await call('ListMemories', { pageSize: 100 }, { signal });
  } catch {
    return; // the field still takes ids; listing is a convenience
  }
  for (const summary of page.memories || []) {
    const id = summary.head.artifactId;
    const box = el('input', { type: 'checkbox', value: id, checked: listField(input.value).includes(id),
      onchange: () => {
        const chosen = listField(input.value).filter((item) => item !== id);
        input.value = (box.checked ? [...chosen, id] : chosen).join(', ');
      } });
    target.append(el('label', { class: 'check' }, box, ' ', untrusted(summary.label || id, summary.label ? 'label' : 'id')));
  }
}

async function describeCapabilities(target, signal) {
  try {
    const { capabilities = {} } = await call('GetCapabilities', {}, { signal });
    const vector = capabilities.vector ? 'vector search available'
      : `vector search unavailable: ${capabilities.vectorUnavailableReason || 'no reason given'}`;
    const profile = capabilities.embeddingProfile ? ` (model ${capabilities.embeddingProfile.model})` : '';
    target.replaceChildren(untrusted(`${vector}${profile}`));
  } catch (error) {
    if (error.name !== 'AbortError') target.replaceChildren(errorView(error, { what: 'Capabilities' }));
  }
}

async function runMode(request, slot, signal) {
  const status = slot.querySelector('.status');
  try {
    const answer = await call('Search', request, { signal });
    const hits = answer.hits || [];
    fill(status,
      el('div', {}, `ran ${enumName(answer.mode, 'SEARCH_MODE_')}, ${hits.length} hit(s)`),
      answer.fallbackReason ? el('div', { class: 'hint fallback' }, 'fallback: ', untrusted(answer.fallbackReason)) : null);
    slot.append(el('ol', { class: 'hits' }, hits.map(hitItem)));
  } catch (error) {
    status.replaceChildren(errorView(error, { what: `${enumName(request.mode, 'SEARCH_MODE_')} search` }));
  }
}

function channelRanks(hit) {
  const channels = hit.matchedBy || [];
  const ranks = hit.channelRanks || [];
  return channels.map((channel, i) => `${enumName(channel, 'SEARCH_CHANNEL_')} #${ranks[i] ?? '?'}`).join(' · ');
}

function hitItem(hit) {
  return el('li', { class: 'hit', dataset: { entry: hit.entryId } },
    el('div', { class: 'kind-line' },
      el('span', { class: 'score' }, (hit.score || 0).toFixed(4)), ' ',
      el('span', { class: 'ranks' }, channelRanks(hit)), ' ',
      untrusted(hit.kind, 'kind'), ' ', chips(hit.tags)),
    block(hit.text, 'entry-text'),
    hit.description ? el('div', { class: 'description' }, untrusted(hit.description)) : null,
    citationLine({ memoryRef: hit.memoryRef, entryId: hit.entryId, entryVersionId: hit.entryVersionId }));
}
