// A TCP proxy in front of the test server that, once armed, loses the next answer: it reads
// the server's HTTP/2 frames and, at the first response HEADERS (a finished call — for a
// write, a committed one), destroys both sides of the connection instead of forwarding them.
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

const FRAME_HEADER_BYTES = 9;
const HEADERS_FRAME = 0x1;

export class CuttingProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  readonly #targetPort: number;
  #armed = false;
  accepted = 0;
  cuts = 0;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
    this.#server = createServer((client) => this.#accept(client));
  }

  static async start(target: string): Promise<CuttingProxy> {
    const proxy = new CuttingProxy(Number(target.split(':').pop()));
    await new Promise<void>((ready) => proxy.#server.listen(0, '127.0.0.1', ready));
    return proxy;
  }

  get endpoint(): string {
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Lose the answer of the next call that completes. */
  arm(): void {
    this.#armed = true;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((done) => this.#server.close(() => done()));
  }

  #accept(client: Socket): void {
    this.accepted++;
    const upstream = connect(this.#targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
      socket.on('error', () => undefined); // a cut connection errors on the other side
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    let pending = Buffer.alloc(0); // bytes of server frames not yet forwarded
    upstream.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= FRAME_HEADER_BYTES) {
        const size = FRAME_HEADER_BYTES + pending.readUIntBE(0, 3);
        if (pending.length < size) break;
        const type = pending[3];
        const stream = pending.readUInt32BE(5) & 0x7fffffff;
        if (this.#armed && type === HEADERS_FRAME && stream !== 0) {
          this.#armed = false;
          this.cuts++;
          client.destroy();
          upstream.destroy();
          return;
        }
        client.write(pending.subarray(0, size));
        pending = pending.subarray(size);
      }
    });
  }
}
