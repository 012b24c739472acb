// Hash routes (#/path/segments?params): every link the page shows is built here from route
// names and encoded ids, never taken from memory data.

const routes = [];
let controller = null;
let outlet = null;

/** Registers a view for a pattern like 'm/:id/rev/:revision'. */
export function route(pattern, view) {
  routes.push({ parts: pattern ? pattern.split('/') : [], view });
}

/** '#/' + encoded segments + optional query; values are encoded, so any id is safe here. */
export function href(segments, params = {}) {
  const path = segments.map((s) => encodeURIComponent(String(s))).join('/');
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null && item !== '') query.append(key, String(item));
    }
  }
  const text = query.toString();
  return `#/${path}${text ? `?${text}` : ''}`;
}

export function go(segments, params) {
  const target = href(segments, params);
  if (location.hash === target) render();
  else location.hash = target;
}

function parse() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const segments = path ? path.split('/').map((s) => decodeURIComponent(s)) : [];
  return { segments, params: new URLSearchParams(query) };
}

function match(segments) {
  for (const { parts, view } of routes) {
    if (parts.length !== segments.length) continue;
    const args = {};
    if (parts.every((part, i) => (part.startsWith(':') ? ((args[part.slice(1)] = segments[i]), true) : part === segments[i]))) {
      return { view, args };
    }
  }
  return null;
}

/** Renders the current route into the outlet; the previous view's work is aborted. */
export function render() {
  if (controller) controller.abort();
  controller = new AbortController();
  const { segments, params } = parse();
  const found = match(segments) || match([]);
  outlet.replaceChildren();
  window.scrollTo(0, 0);
  const context = { ...found.args, params, signal: controller.signal, outlet };
  Promise.resolve(found.view(context)).catch((error) => {
    if (error.name !== 'AbortError') console.error('view failed', error);
  });
}

export function start(target) {
  outlet = target;
  window.addEventListener('hashchange', render);
  render();
}
