// The open memory: its summary, and one Changes follow stream that delivers every new revision
// while any of the memory's views is shown. Views subscribe; switching memories closes it.

import { call, stream } from './api.js';
import { el, link, untrusted } from './dom.js';
import { href } from './router.js';
import { int, when } from './format.js';

const RETRY_MS = 2000;
let current = null;

class MemorySession {
  constructor(artifactId) {
    this.artifactId = artifactId;
    this.head = 0;
    this.summary = null;
    this.live = []; // RevisionChanges delivered by the follow stream, in order
    this.status = 'connecting';
    this.listeners = new Set();
    this.controller = new AbortController();
    this.ready = this.load();
  }

  async load() {
    const memory = await call('GetMemory', {
      memory: { artifactId: this.artifactId, revision: '0' }, metadataOnly: true,
    }, { signal: this.controller.signal });
    this.summary = memory;
    this.head = int(memory.memory.revision);
    this.follow();
    return this;
  }

  async follow() {
    while (!this.controller.signal.aborted) {
      try {
        const request = {
          memory: { artifactId: this.artifactId, revision: '0' },
          sinceRevision: String(this.head), follow: true,
        };
        this.setStatus('live');
        for await (const message of stream('Changes', request, { signal: this.controller.signal })) {
          if (message.revision) this.arrived(message.revision);
        }
      } catch (error) {
        if (error.name === 'AbortError') return;
        this.setStatus(`disconnected (${error.code || 'error'}): retrying`);
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  arrived(revision) {
    const number = int(revision.memoryRef.revision);
    if (this.live.some((r) => int(r.memoryRef.revision) === number)) return; // resent on reconnect
    this.head = Math.max(this.head, number);
    this.live.push(revision);
    this.emit('revision', revision);
  }

  /** After a write of ours: the head moved (the stream delivers the revision too). */
  wrote(ref) {
    if (ref && int(ref.revision) > this.head) this.emit('head', int(ref.revision));
  }

  setStatus(status) {
    this.status = status;
    this.emit('status', status);
  }

  emit(kind, value) {
    for (const listener of this.listeners) listener(kind, value);
  }

  /** Listens until `signal` aborts (the view is left). */
  subscribe(listener, signal) {
    this.listeners.add(listener);
    signal.addEventListener('abort', () => this.listeners.delete(listener));
  }

  close() {
    this.controller.abort();
    this.listeners.clear();
  }
}

/** The session of `artifactId`, opening it (and closing another memory's) when needed. */
export function openSession(artifactId) {
  if (current && current.artifactId === artifactId && !current.failed) return current;
  if (current) current.close();
  current = new MemorySession(artifactId);
  current.ready.catch(() => {
    current.failed = true;
  });
  return current;
}

export function closeSession() {
  if (current) current.close();
  current = null;
}

const TABS = [
  ['Entries', []],
  ['Timeline', ['timeline']],
];

/** The memory's header: label, id, head (kept live), counts and its tabs. */
export function memoryHeader(session, active, signal) {
  const memory = session.summary || {};
  const headText = el('span', { class: 'head-revision', text: String(session.head) });
  const status = el('span', { class: 'live-status', text: session.status });
  session.subscribe((kind, value) => {
    if (kind === 'revision' || kind === 'head') headText.textContent = String(session.head);
    if (kind === 'status') status.textContent = value;
  }, signal);
  const tabs = TABS.map(([name, rest]) => link(href(['m', session.artifactId, ...rest]), name,
    { class: name === active ? 'tab active' : 'tab' }));
  tabs.push(link(href(['search'], { m: session.artifactId }), 'Search', { class: 'tab' }));
  return el('div', { class: 'memory-header' },
    el('h1', {}, untrusted(session.artifactId, 'id')),
    el('div', { class: 'muted' },
      'head revision ', headText,
      ` · ${int(memory.activeEntries)} active, ${int(memory.inactiveEntries)} inactive at load`,
      memory.committedAt ? ` · last change ${when(memory.committedAt)}` : '',
      ' · ', status),
    el('nav', { class: 'tabs' }, tabs));
}
