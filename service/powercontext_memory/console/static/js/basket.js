// The handoff basket: citation texts picked from entries, search hits or pasted, kept in
// sessionStorage so it survives navigation but not the browser session.

const KEY = 'powercontext.console.handoff';
const listeners = new Set();

export function picked() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) || '[]');
    return Array.isArray(value) ? value.filter((item) => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

function save(items) {
  sessionStorage.setItem(KEY, JSON.stringify(items));
  for (const listener of listeners) listener(items);
}

export function pick(citationText) {
  const items = picked();
  if (!items.includes(citationText)) save([...items, citationText]);
}

export function drop(citationText) {
  save(picked().filter((item) => item !== citationText));
}

export function empty() {
  save([]);
}

export function onChange(listener) {
  listeners.add(listener);
}
