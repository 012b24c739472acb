// A Connect-protocol client for MemoryService over the server's HTTP door: unary calls as
// JSON, server streams as enveloped JSON. The token travels only in the Authorization header.

const SERVICE = '/powercontext.memory.v1.MemoryService/';
const TOKEN_KEY = 'powercontext.console.token';
const END_STREAM = 0x02;
const COMPRESSED = 0x01;

// Connect's codes for answers that carry no error body (a proxy's 502, say).
const HTTP_CODES = {
  400: 'invalid_argument', 401: 'unauthenticated', 403: 'permission_denied', 404: 'unimplemented',
  408: 'deadline_exceeded', 409: 'aborted', 412: 'failed_precondition', 429: 'resource_exhausted',
  501: 'unimplemented', 502: 'unavailable', 503: 'unavailable', 504: 'deadline_exceeded',
};

export class RpcError extends Error {
  constructor(code, message, details = [], status = 0) {
    super(message);
    this.code = code;
    this.details = details;
    this.status = status;
  }

  /** The ErrorInfo detail's decoded form ({reason, domain, metadata}), when the door sent it. */
  get info() {
    const found = this.details.find((d) => String(d.type || '').endsWith('google.rpc.ErrorInfo'));
    return (found && found.debug) || {};
  }

  get reason() {
    return this.info.reason || '';
  }

  get metadata() {
    return this.info.metadata || {};
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers(contentType) {
  const result = { 'Content-Type': contentType, 'Connect-Protocol-Version': '1' };
  const bearer = token();
  if (bearer) result.Authorization = `Bearer ${bearer}`;
  return result;
}

function errorFrom(body, status) {
  if (body && typeof body === 'object' && typeof body.code === 'string') {
    return new RpcError(body.code, body.message || body.code, body.details || [], status);
  }
  const code = HTTP_CODES[status] || 'unknown';
  return new RpcError(code, `HTTP ${status} without a Connect error`, [], status);
}

async function post(method, contentType, body, signal) {
  try {
    return await fetch(SERVICE + method, {
      method: 'POST', headers: headers(contentType), body, signal,
      credentials: 'same-origin', cache: 'no-store', referrerPolicy: 'no-referrer',
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new RpcError('unavailable', `cannot reach the server: ${error.message}`);
  }
}

/** One unary call: the request and response as protobuf JSON. */
export async function call(method, request = {}, { signal } = {}) {
  const response = await post(method, 'application/json', JSON.stringify(request), signal);
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = null;
  }
  if (!response.ok) throw errorFrom(body, response.status);
  if (body === null) throw new RpcError('internal', 'the server answered with something not JSON');
  return body;
}

function envelope(message) {
  const payload = new TextEncoder().encode(JSON.stringify(message));
  const framed = new Uint8Array(5 + payload.length);
  new DataView(framed.buffer).setUint32(1, payload.length);
  framed.set(payload, 5);
  return framed;
}

function concat(a, b) {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

/** A server stream: yields each message; ends quietly on the end message, or throws its error. */
export async function* stream(method, request = {}, { signal } = {}) {
  const response = await post(method, 'application/connect+json', envelope(request), signal);
  if (!response.ok) {
    let body = null;
    try {
      body = JSON.parse(await response.text());
    } catch {
      body = null;
    }
    throw errorFrom(body, response.status);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = new Uint8Array(0);
  try {
    for (;;) {
      while (buffer.length >= 5) {
        const flags = buffer[0];
        const length = new DataView(buffer.buffer, buffer.byteOffset).getUint32(1);
        if (buffer.length < 5 + length) break;
        const payload = decoder.decode(buffer.subarray(5, 5 + length));
        buffer = buffer.slice(5 + length);
        if (flags & COMPRESSED) throw new RpcError('internal', 'a compressed message was not asked for');
        const message = payload ? JSON.parse(payload) : {};
        if (flags & END_STREAM) {
          if (message.error) throw errorFrom(message.error, 200);
          return;
        }
        yield message;
      }
      const { done, value } = await reader.read();
      if (done) throw new RpcError('unavailable', 'the stream ended before its end message');
      buffer = concat(buffer, value);
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** Every message of a stream that ends by itself (Changes without follow). */
export async function collect(method, request, options) {
  const messages = [];
  for await (const message of stream(method, request, options)) messages.push(message);
  return messages;
}

/** Runs `work(item)` over items with at most `limit` at a time; results in input order. */
export async function pooled(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
