// Client settings: explicit options first, then POWERCONTEXT_* environment variables, then
// defaults. Resolved once, when the client is created.
import { readFileSync } from 'node:fs';

import type { ChannelOptions } from '@grpc/grpc-js';

import { resolveBackoff, type BackoffPolicy } from './backoff';

export const ENV = Object.freeze({
  endpoint: 'POWERCONTEXT_ENDPOINT',
  token: 'POWERCONTEXT_TOKEN',
  tlsCa: 'POWERCONTEXT_TLS_CA',
  tlsCert: 'POWERCONTEXT_TLS_CERT',
  tlsKey: 'POWERCONTEXT_TLS_KEY',
  /** Default deadline in seconds, as for the Python client. */
  timeout: 'POWERCONTEXT_TIMEOUT',
  /** Connect window in seconds, as for the Python client. */
  connectTimeout: 'POWERCONTEXT_CONNECT_TIMEOUT',
});

export const DEFAULT_ENDPOINT = '127.0.0.1:50051';
export const DEFAULT_DEADLINE_MS = 30_000;
// Long enough to ride out a server that is restarting, short enough that a stopped one is
// reported before a person wonders whether the program hangs.
export const DEFAULT_CONNECT_TIMEOUT_MS = 1_000;
export const DEFAULT_READ_RETRIES = 3;
/** The server's send and receive limit. gRPC's default of 4 MiB would refuse large reads. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
// The server allows a ping per 10 s without data; 30 s stays well inside that.
export const DEFAULT_KEEPALIVE_TIME_MS = 30_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 10_000;

/** A bearer token, or a function returning the current one (called before every call). */
export type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

/** PEM material, given inline or as file paths (the environment variables hold paths). */
export interface TlsOptions {
  /** Root CA(s) to trust instead of the system's. */
  readonly ca?: Buffer;
  readonly caFile?: string;
  /** Client certificate chain, for mTLS; needs `key` too. */
  readonly cert?: Buffer;
  readonly certFile?: string;
  readonly key?: Buffer;
  readonly keyFile?: string;
  /** For certificates issued to another name than the endpoint's host (tests, tunnels). */
  readonly serverName?: string;
}

export interface ClientOptions {
  /** host:port or any grpc-js target. Env POWERCONTEXT_ENDPOINT, default 127.0.0.1:50051. */
  readonly endpoint?: string;
  /** Sent as `authorization: Bearer <token>`. Env POWERCONTEXT_TOKEN. */
  readonly token?: TokenSource;
  /**
   * TLS settings; `true` for TLS with the system roots, `false` for plaintext whatever the
   * environment says. Unset: TLS when any POWERCONTEXT_TLS_* variable is set.
   */
  readonly tls?: TlsOptions | boolean;
  /**
   * Deadline of every call but follow streams, unless a call gives its own. Env
   * POWERCONTEXT_TIMEOUT (seconds), default 30 s.
   */
  readonly deadlineMs?: number;
  /**
   * The connect window: how long a call that reaches no server (connection refused, name not
   * resolved, handshake refused) is tried again before it fails with `Unavailable` naming the
   * endpoint and the cause, e.g. `cannot reach 127.0.0.1:50051: connection refused`. 0 fails
   * at the first refusal. Env POWERCONTEXT_CONNECT_TIMEOUT (seconds), default 1 s.
   */
  readonly connectTimeoutMs?: number;
  /**
   * Extra attempts for read-only calls that fail with UNAVAILABLE. (Writes are sent again only
   * when their answer is lost, with their request id: WRITE_ATTEMPTS sends at most.)
   */
  readonly readRetries?: number;
  /** Backoff between read retries and between follow reconnections. */
  readonly backoff?: Partial<BackoffPolicy>;
  readonly keepaliveTimeMs?: number;
  readonly keepaliveTimeoutMs?: number;
  /** Receive and send limit; default 32 MiB, as the server. */
  readonly maxMessageBytes?: number;
  /** Raw grpc-js channel options, applied last (e.g. grpc.ssl_target_name_override). */
  readonly channelOptions?: ChannelOptions;
  /** Where POWERCONTEXT_* variables are read from; default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export interface TlsMaterial {
  readonly ca: Buffer | undefined;
  readonly cert: Buffer | undefined;
  readonly key: Buffer | undefined;
  readonly serverName: string | undefined;
}

export interface ResolvedConfig {
  readonly endpoint: string;
  readonly token: TokenSource | undefined;
  /** Undefined: plaintext. */
  readonly tls: TlsMaterial | undefined;
  readonly deadlineMs: number;
  readonly connectTimeoutMs: number;
  readonly readRetries: number;
  readonly backoff: BackoffPolicy;
  readonly channelOptions: ChannelOptions;
}

export function resolveConfig(options: ClientOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  const backoff = resolveBackoff(options.backoff);
  const maxMessageBytes = positive('maxMessageBytes', options.maxMessageBytes ?? MAX_MESSAGE_BYTES);
  const tls = resolveTls(options.tls, env);
  const deadlineMs =
    options.deadlineMs ?? secondsAsMs(ENV.timeout, env[ENV.timeout]) ?? DEFAULT_DEADLINE_MS;
  const connectTimeoutMs =
    options.connectTimeoutMs ??
    secondsAsMs(ENV.connectTimeout, env[ENV.connectTimeout], true) ??
    DEFAULT_CONNECT_TIMEOUT_MS;
  return Object.freeze({
    endpoint: options.endpoint ?? nonEmpty(env[ENV.endpoint]) ?? DEFAULT_ENDPOINT,
    token: options.token ?? nonEmpty(env[ENV.token]),
    tls,
    deadlineMs: positive('deadlineMs', deadlineMs),
    connectTimeoutMs: notNegative('connectTimeoutMs', connectTimeoutMs),
    readRetries: atLeastZero('readRetries', options.readRetries ?? DEFAULT_READ_RETRIES),
    backoff,
    channelOptions: Object.freeze({
      'grpc.max_receive_message_length': maxMessageBytes,
      'grpc.max_send_message_length': maxMessageBytes,
      'grpc.keepalive_time_ms': positive(
        'keepaliveTimeMs',
        options.keepaliveTimeMs ?? DEFAULT_KEEPALIVE_TIME_MS,
      ),
      'grpc.keepalive_timeout_ms': positive(
        'keepaliveTimeoutMs',
        options.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS,
      ),
      // Reconnect to a restarted server about as fast as follow() retries (gRPC's cap is 120 s).
      'grpc.initial_reconnect_backoff_ms': Math.max(100, backoff.initialDelayMs),
      'grpc.max_reconnect_backoff_ms': Math.max(100, backoff.maxDelayMs),
      'grpc.primary_user_agent': 'powercontext-memory-node',
      ...(tls?.serverName ? { 'grpc.ssl_target_name_override': tls.serverName } : {}),
      ...options.channelOptions,
    }),
  });
}

function resolveTls(
  option: TlsOptions | boolean | undefined,
  env: Readonly<Record<string, string | undefined>>,
): TlsMaterial | undefined {
  const fromEnv: TlsOptions = {
    caFile: nonEmpty(env[ENV.tlsCa]),
    certFile: nonEmpty(env[ENV.tlsCert]),
    keyFile: nonEmpty(env[ENV.tlsKey]),
  };
  const envWantsTls = Boolean(fromEnv.caFile || fromEnv.certFile || fromEnv.keyFile);
  if (option === false || (option === undefined && !envWantsTls)) {
    return undefined;
  }
  const given = typeof option === 'object' ? option : {};
  const material: TlsMaterial = {
    ca: given.ca ?? readPem('CA', given.caFile ?? fromEnv.caFile),
    cert: given.cert ?? readPem('certificate', given.certFile ?? fromEnv.certFile),
    key: given.key ?? readPem('key', given.keyFile ?? fromEnv.keyFile),
    serverName: given.serverName,
  };
  if (Boolean(material.cert) !== Boolean(material.key)) {
    throw new TypeError('TLS client certificate and key must be given together (mTLS)');
  }
  return Object.freeze(material);
}

/** True for endpoints that never leave the machine, where a plaintext token is tolerable. */
export function isLoopbackEndpoint(endpoint: string): boolean {
  const target = endpoint.replace(/^(dns|ipv4|ipv6):(\/\/[^/]*\/)?/, '');
  return (
    target.startsWith('unix:') || /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/.test(target)
  );
}

function readPem(what: string, path: string | undefined): Buffer | undefined {
  if (path === undefined) {
    return undefined;
  }
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read the TLS ${what} file ${path}`, { cause: error });
  }
}

function secondsAsMs(name: string, value: string | undefined, zero = false): number | undefined {
  const text = nonEmpty(value);
  if (text === undefined) {
    return undefined;
  }
  const seconds = Number(text);
  if (!(Number.isFinite(seconds) && (seconds > 0 || (zero && seconds === 0)))) {
    const what = zero ? 'a number of seconds >= 0' : 'a positive number of seconds';
    throw new RangeError(`${name} must be ${what}, got ${text}`);
  }
  return seconds * 1000;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  return value;
}

function notNegative(name: string, value: number): number {
  if (!(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${name} must be a number >= 0, got ${value}`);
  }
  return value;
}

function atLeastZero(name: string, value: number): number {
  if (!(Number.isInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}
