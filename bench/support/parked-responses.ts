/**
 * The floor servers of the waiters benchmark (`bare-http.floor.ts`, `fastify.floor.ts`) keep every
 * long poll's response here and never answer it until the parent says so over IPC: what remains per
 * waiter is what the HTTP stack itself holds for an open request, with no application around it.
 */
import type { ServerResponse } from 'node:http';

export type ParkedRequest = { op: 'parked' } | { op: 'release'; count: number };
export interface ParkedReply {
  parked: number;
}
/** What a released long poll answers (the shape of an answered `/wait`, not its content). */
const RELEASED_BODY = JSON.stringify({ status: 'answered' });

/** A Set, no listener per response: the floor must add nothing of its own per waiter. */
export class ParkedResponses {
  private readonly responses = new Set<ServerResponse>();

  park(response: ServerResponse): void {
    this.responses.add(response);
  }

  /** Answers the `count` oldest parked responses. */
  release(count: number): void {
    for (const response of [...this.responses].slice(0, count)) {
      this.responses.delete(response);
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(RELEASED_BODY);
    }
  }

  /** Serves the parent's IPC requests and ends every parked response on SIGTERM. */
  serveParent(): void {
    process.on('message', (request: ParkedRequest) => {
      if (request.op === 'release') this.release(request.count);
      if (request.op === 'parked' || request.op === 'release') process.send?.({ parked: this.responses.size } satisfies ParkedReply);
    });
    process.once('SIGTERM', () => {
      this.release(this.responses.size);
      process.exit(0);
    });
  }
}

/** The floor servers listen where the parent says (the same variables as the application's). */
export function listenAddress(): { host: string; port: number } {
  return { host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT) };
}
