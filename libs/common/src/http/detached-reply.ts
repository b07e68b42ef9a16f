import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { HttpErrorFilter } from '../errors/http-error.filter.js';
import { securityHeadersOf } from './security-headers.js';

const errors = new HttpErrorFilter();

/** A parked wait the caller's going away withdraws. */
export interface Withdrawable {
  abort(): void;
}

/**
 * A long poll answered outside Nest's request pipeline, so a parked wait holds little memory
 * (docs/benchmarks.md, "Waiters"). The reply is hijacked before the route handler returns, so Nest and Fastify count it as handled and release the request's
 * pipeline — interceptor observables, async frames, the execution context — at once; while it waits,
 * only the connection, the parked wait and this object stay. It is told the outcome directly (no
 * promise chain) and writes it as Fastify would send it: the security headers (added only now, so a
 * parked reply holds none of them), the headers set so far (x-request-id…), 200 with the value as
 * JSON, or an error through the same mapping as every REST error.
 */
export class DetachedReply {
  /** The client went away before it was answered. */
  gone = false;
  private parked: Withdrawable | undefined;

  constructor(private readonly reply: FastifyReply) {}

  answered(body: unknown): void {
    writeJson(this.reply, 200, {}, body);
  }

  failed(error: unknown): void {
    // Told by whoever ended the wait (another request, a timer): log through this request's own logger.
    const { status, headers, body } = errors.errorReply(error, this.reply.request, this.reply.log.child({ context: 'HttpError' }));
    writeJson(this.reply, status, headers, body);
  }

  /** The wait is parked (or nothing was): from now on the client's going away withdraws it. */
  waitsOn(parked: Withdrawable | undefined): void {
    this.parked = parked;
    if (this.gone) parked?.abort();
  }

  /** The response's connection closed: before the answer was written, the client went away. */
  closed(): void {
    if (this.reply.raw.writableFinished) return;
    this.gone = true;
    this.parked?.abort();
  }
}

/**
 * Hijacks the reply and starts the long poll with its `DetachedReply`: `start` tells it the outcome
 * and resolves with the parked wait, which one `close` listener on the raw response withdraws if the
 * client goes away first (no AbortController per request); a rejection is answered as an error.
 */
export function replyWhenSettled(reply: FastifyReply, start: (answer: DetachedReply) => Promise<Withdrawable | undefined>): void {
  reply.hijack();
  const answer = new DetachedReply(reply);
  // `on`, not `once`: 'close' comes once anyway, and `once` would add a wrapper and its state per request.
  reply.raw.on('close', () => answer.closed());
  start(answer).then(
    (parked) => answer.waitsOn(parked),
    (error: unknown) => answer.failed(error),
  );
}

function writeJson(reply: FastifyReply, status: number, headers: Record<string, string>, body: unknown): void {
  const raw = reply.raw;
  if (raw.headersSent || raw.destroyed) return;
  const payload = JSON.stringify(body);
  const sent: OutgoingHttpHeaders = {
    ...Object.fromEntries(securityHeadersOf(reply.request)),
    ...(reply.getHeaders() as OutgoingHttpHeaders),
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  };
  raw.writeHead(status, sent);
  raw.end(payload);
}
