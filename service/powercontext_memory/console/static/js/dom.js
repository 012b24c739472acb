// DOM built only with createElement and textContent: memory data never passes through an
// HTML parser, so stored text cannot become markup, script or style.

const FORBIDDEN_ATTRIBUTES = /^(on|style$|src$|srcdoc$|formaction$|action$|xlink:href$)/i;

/** An element: `props` sets class, text, handlers (onclick…), dataset and plain attributes;
 * `href` only takes a same-page hash route (see router.js); children are nodes or strings. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'value') node.value = String(value);
    else if (key === 'checked') node.checked = Boolean(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'href') node.setAttribute('href', hashOnly(value));
    else if (FORBIDDEN_ATTRIBUTES.test(key)) throw new Error(`attribute ${key} is not allowed`);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function hashOnly(target) {
  const text = String(target);
  if (!text.startsWith('#/')) throw new Error('links go to same-page routes only');
  return text;
}

/** Appends nodes and strings (as text), skipping null/false and flattening arrays. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replaces a node's children, skipping null/false as `append` does (replaceChildren would
 * show them as the text "null"). */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

/** Untrusted text in an isolated span: direction overrides inside cannot reorder the page. */
export function untrusted(text, className = '') {
  return el('span', { class: `u ${className}`.trim(), text: text ?? '' });
}

/** Untrusted multi-line text (entry text, source content) kept as written. */
export function block(text, className = '') {
  return el('pre', { class: `u text ${className}`.trim(), text: text ?? '' });
}

export function button(label, onclick, props = {}) {
  return el('button', { type: 'button', onclick, ...props }, label);
}

export function link(route, label, props = {}) {
  return el('a', { href: route, ...props }, label);
}

export function chips(values, className = 'tag') {
  return (values || []).map((value) => untrusted(value, className));
}

export function field(label, input) {
  return el('label', { class: 'field' }, el('span', {}, label), input);
}

/** A definition list from [term, value] pairs (values may be nodes). */
export function facts(pairs) {
  const list = el('dl', { class: 'facts' });
  for (const [term, value] of pairs) {
    if (value === null || value === undefined || value === '') continue;
    list.append(el('dt', {}, term), el('dd', {}, value));
  }
  return list;
}

export function section(title, ...children) {
  return el('section', { class: 'panel' }, el('h2', {}, title), ...children);
}

export function note(text, className = 'muted') {
  return el('p', { class: className }, text);
}

/** A table with a header row; `rows` are arrays of cells (nodes or strings). */
export function table(headers, rows, className = '') {
  const head = el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h))));
  const body = el('tbody');
  for (const row of rows) body.append(tableRow(row));
  return el('table', { class: className }, head, body);
}

export function tableRow(cells, props = {}) {
  return el('tr', props, cells.map((cell) => el('td', {}, cell)));
}
