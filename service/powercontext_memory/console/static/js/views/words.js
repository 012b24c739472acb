// A word-level diff of two texts (longest common subsequence), shown with <del> and <ins>
// elements holding text only. Long texts fall back to old and new side by side.

import { el } from '../dom.js';

const MAX_CELLS = 1_000_000; // the LCS table's size, kept small enough to stay instant

function words(text) {
  return String(text || '').split(/(\s+)/).filter((part) => part !== '');
}

function operations(a, b) {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const table = new Uint32Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * cols + j] = a[i] === b[j]
        ? table[(i + 1) * cols + j + 1] + 1
        : Math.max(table[(i + 1) * cols + j], table[i * cols + j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push(['same', a[i++]]);
      j++;
    } else if (table[(i + 1) * cols + j] >= table[i * cols + j + 1]) out.push(['del', a[i++]]);
    else out.push(['ins', b[j++]]);
  }
  while (i < a.length) out.push(['del', a[i++]]);
  while (j < b.length) out.push(['ins', b[j++]]);
  return out;
}

export function wordDiff(before, after) {
  const a = words(before);
  const b = words(after);
  const target = el('pre', { class: 'u text words' });
  if ((a.length + 1) * (b.length + 1) > MAX_CELLS) {
    target.append(el('del', { text: before }), el('ins', { text: after }));
    return target;
  }
  for (const [kind, text] of operations(a, b)) {
    target.append(kind === 'same' ? document.createTextNode(text) : el(kind, { text }));
  }
  return target;
}
