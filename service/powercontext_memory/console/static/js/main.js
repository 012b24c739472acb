// Boots the console: the token field, the navigation and the hash routes.

import { setToken, token } from './api.js';
import { onChange, picked } from './basket.js';
import { el, link } from './dom.js';
import { href, render, route, start } from './router.js';
import { closeSession } from './session.js';
import { citeView } from './views/cite.js';
import { diffView } from './views/diff.js';
import { entriesView } from './views/entries.js';
import { handoffView } from './views/handoff.js';
import { historyView } from './views/history.js';
import { memoriesView } from './views/memories.js';
import { searchView } from './views/search.js';
import { timelineView } from './views/timeline.js';

route('', memoriesView);
route('m/:id', entriesView);
route('m/:id/timeline', timelineView);
route('m/:id/rev/:revision', diffView);
route('m/:id/entry/:entryId', historyView);
route('search', searchView);
route('cite', citeView);
route('handoff', handoffView);

function navigation() {
  const count = el('span', { class: 'count', text: String(picked().length) });
  onChange((items) => {
    count.textContent = String(items.length);
  });
  return [
    link(href([]), 'Memories'), link(href(['search']), 'Search'),
    link(href(['cite']), 'Citations'), link(href(['handoff']), 'Handoff ', { class: 'handoff-nav' }),
  ].map((node, i) => (i === 3 ? (node.append(count), node) : node));
}

function tokenForm() {
  const form = document.getElementById('token-form');
  const input = document.getElementById('token');
  const state = document.getElementById('token-state');
  const show = () => {
    state.textContent = token() ? 'token set for this tab' : 'no token';
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    setToken(input.value.trim());
    input.value = '';
    show();
    closeSession(); // a load begun under the old token must not answer for the new one
    render();
  });
  document.getElementById('token-clear').addEventListener('click', () => {
    setToken('');
    input.value = '';
    show();
    closeSession();
    render();
  });
  show();
}

document.getElementById('nav').append(...navigation());
tokenForm();
start(document.getElementById('main'));
