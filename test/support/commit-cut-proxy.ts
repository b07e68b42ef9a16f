import net from 'node:net';

/**
 * A TCP proxy between the servers under test and PostgreSQL that can cut one connection at its COMMIT:
 * armed with a marker (a pending id), the first simple-query `COMMIT` sent on a connection whose open
 * transaction carried the marker is either forwarded and its result swallowed before the connection is
 * cut (`after`: the commit happened, the client never learns it), or never forwarded (`before`: the
 * server rolls the transaction back when the connection drops). Everything else passes through.
 */
export type CommitCut = 'before' | 'after';

interface Armed {
  marker: Buffer;
  cut: CommitCut;
  done: (at: CommitCut) => void;
}

const COMMIT = /^\s*commit\s*;?\s*$/i;

export class CommitCutProxy {
  private armed: Armed | undefined;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<CommitCutProxy> {
    const accepting: { proxy?: CommitCutProxy } = {};
    const server = net.createServer((client) => accepting.proxy?.accept(client, targetPort));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    accepting.proxy = new CommitCutProxy(server, (server.address() as net.AddressInfo).port);
    return accepting.proxy;
  }

  /** `url` with its port replaced by the proxy's. */
  urlFor(url: string): string {
    const parsed = new URL(url);
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Resolves once a COMMIT of a transaction that carried `marker` was cut. */
  arm(marker: string, cut: CommitCut): Promise<CommitCut> {
    return new Promise((resolve) => {
      this.armed = { marker: Buffer.from(marker), cut, done: resolve };
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, targetPort: number): void {
    const upstream = net.connect(targetPort, '127.0.0.1');
    this.sockets.add(client).add(upstream);
    const cutBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      this.sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      this.sockets.delete(upstream);
      client.destroy();
    });
    client.on('error', () => undefined);
    upstream.on('error', () => undefined);

    let pending = Buffer.alloc(0);
    let started = false;
    let carried = false;
    let swallowing = false;
    upstream.on('data', (chunk: Buffer) => {
      if (swallowing) {
        // The server answered the COMMIT: it committed, and the client never hears of it.
        cutBoth();
        return;
      }
      client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        // The startup message (and an SSL request) has no type byte; every later message has one.
        const header = started ? 5 : 4;
        if (pending.length < header) return;
        const length = started ? pending.readInt32BE(1) + 1 : pending.readInt32BE(0);
        if (pending.length < length) return;
        const message = pending.subarray(0, length);
        pending = pending.subarray(length);
        if (!started) {
          // An SSLRequest (80877103) is followed by another startup message.
          if (message.length !== 8 || message.readInt32BE(4) !== 80877103) started = true;
          upstream.write(message);
          continue;
        }
        const armed = this.armed;
        if (armed && message.includes(armed.marker)) carried = true;
        const type = String.fromCharCode(message[0]);
        const text = type === 'Q' ? message.subarray(5, message.length - 1).toString('utf8') : '';
        if (type === 'Q' && COMMIT.test(text) && armed && carried) {
          this.armed = undefined;
          armed.done(armed.cut);
          if (armed.cut === 'before') {
            cutBoth();
            return;
          }
          swallowing = true;
          upstream.write(message);
          return;
        }
        if (type === 'Q' && /^\s*(commit|rollback)\b/i.test(text)) carried = false;
        upstream.write(message);
      }
    });
  }
}
