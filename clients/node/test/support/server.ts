// Starts the real PowerContext Memory server for the tests: its own temporary SQLite database,
// a free port, graceful stop by SIGTERM, and restart on the same port and database.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

const READY_LINE = /^serving \S+ on (\S+):(\d+) /;
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 15_000;

// Never leave a server behind, even when a test run is interrupted.
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** The server command: POWERCONTEXT_SERVER_COMMAND, else the repository's venv. */
export function serverCommand(): string {
  return (
    process.env.POWERCONTEXT_SERVER_COMMAND ||
    join(packageRoot(), '..', '..', '.venv', 'bin', 'powercontext-memory')
  );
}

/** clients/node, found from this file whether it runs from test/ or dist/test/. */
export function packageRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${__dirname}`);
    dir = parent;
  }
  return resolve(dir);
}

export interface ServerOptions {
  /** Seconds of idleness before a follow stream gets a progress message (server default 15). */
  readonly progressIntervalSeconds?: number;
  /** More `serve` arguments, e.g. `--auth tokens` or `--tls-cert` (see auth.test.ts). */
  readonly args?: readonly string[];
}

export class TestServer {
  readonly #dir: string;
  readonly #options: ServerOptions;
  #process: ChildProcess | undefined;
  #disposed = false;
  #port = 0;
  #stderr = '';

  private constructor(dir: string, options: ServerOptions) {
    this.#dir = dir;
    this.#options = options;
  }

  /** A server on a fresh database and a free port, ready to serve. */
  static async start(options: ServerOptions = {}): Promise<TestServer> {
    const server = new TestServer(mkdtempSync(join(tmpdir(), 'powercontext-node-')), options);
    await server.#launch(0);
    return server;
  }

  get endpoint(): string {
    return `127.0.0.1:${this.#port}`;
  }

  get databasePath(): string {
    return join(this.#dir, 'memory.sqlite3');
  }

  /**
   * SIGTERM, as an operator would: the server ends follow streams and drains, then exits.
   * SIGKILL stands for a crash: connections just drop.
   */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.#process;
    this.#process = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Starts again on the same port and database, retrying while the port is not yet free. */
  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    const until = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await this.#launch(this.#port);
        return;
      } catch (error) {
        if (Date.now() > until) throw error;
        await sleep(200);
      }
    }
  }

  /** Stops the server and removes its database; a restart still under way stops on arrival. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #launch(port: number): Promise<void> {
    const args = [
      'serve',
      '--listen',
      `127.0.0.1:${port}`,
      '--database',
      this.databasePath,
      '--embedding',
      'none',
    ];
    if (this.#options.progressIntervalSeconds !== undefined) {
      args.push('--progress-interval', String(this.#options.progressIntervalSeconds));
    }
    args.push(...(this.#options.args ?? []));
    const child = spawn(serverCommand(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.#stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000); // the tail explains a failed start
    });
    this.#port = await new Promise<number>((ready, fail) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error(`server not ready after ${START_TIMEOUT_MS} ms\n${this.#stderr}`));
      }, START_TIMEOUT_MS);
      child.once('error', (error) => {
        clearTimeout(timer);
        const hint = `cannot run ${serverCommand()} (set POWERCONTEXT_SERVER_COMMAND)`;
        fail(new Error(hint, { cause: error }));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        fail(new Error(`server exited before serving (${signal ?? code})\n${this.#stderr}`));
      });
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const match = READY_LINE.exec(line);
        if (match) {
          clearTimeout(timer);
          ready(Number(match[2]));
        }
      });
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    // The exit hook above kills it: the server alone must not keep a finished test run alive.
    child.unref();
    (child.stdout as Socket | null)?.unref();
    (child.stderr as Socket | null)?.unref();
    this.#process = child;
    if (this.#disposed) {
      await this.stop(); // disposed while this start was under way (e.g. a test failed early)
    }
  }
}
