// How a failed call is shown: the code, the server's stable reason and message, and what to
// do next, never hidden behind a generic "something went wrong".

import { el, button } from './dom.js';
import { render } from './router.js';

const HINTS = {
  unauthenticated: 'This server checks tokens: paste one in the Token field above.',
  permission_denied: 'Your token does not allow this (curation needs a write-scope token).',
  unimplemented: 'This server does not offer this call yet.',
  unavailable: 'The server could not be reached or is shutting down; try again.',
};

/** An error panel for `error`; ABORTED says the memory changed and offers a reload. */
export function errorView(error, { what = 'The call failed' } = {}) {
  if (error && error.name === 'AbortError') return el('span');
  if (!error || !error.code) {
    return el('div', { class: 'error', role: 'alert' }, `${what}: ${error && error.message}`);
  }
  if (error.code === 'aborted') return abortedView(error);
  const reason = error.reason ? ` ${error.reason}` : '';
  const metadata = Object.entries(error.metadata).map(([k, v]) => `${k}=${v}`).join(', ');
  return el('div', { class: 'error', role: 'alert', dataset: { code: error.code, reason: error.reason } },
    el('strong', {}, `${what}: ${error.code.toUpperCase()}${reason}`),
    el('div', { class: 'u' }, error.message),
    metadata ? el('div', { class: 'muted u' }, metadata) : null,
    HINTS[error.code] ? el('div', { class: 'hint' }, HINTS[error.code]) : null);
}

function abortedView(error) {
  const head = error.metadata.headRevision;
  const why = error.reason === 'LABEL_CONFLICT'
    ? 'The label was changed by someone else since this list was loaded.'
    : `The memory changed since this view was loaded${head ? ` (its head is now revision ${head})` : ''}.`;
  return el('div', { class: 'error aborted', role: 'alert', dataset: { code: 'aborted', reason: error.reason } },
    el('strong', {}, 'The memory changed, reload'),
    el('div', {}, `${why} Nothing was written. Reload, review the current state, then try again.`),
    el('div', { class: 'muted u' }, `${error.reason || 'ABORTED'}: ${error.message}`),
    button('Reload', () => render(), { class: 'primary' }));
}

/** Replaces `target`'s content with the error for `error` (ignoring aborted views). */
export function showError(target, error, options) {
  if (error && error.name === 'AbortError') return;
  target.replaceChildren(errorView(error, options));
}
