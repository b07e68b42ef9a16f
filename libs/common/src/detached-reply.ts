import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';
import { HttpErrorFilter } from './http-error.filter.js';
import { securityHeadersOf } from './security-headers.js';

const errors = new HttpErrorFilter();

/**
 * Answers a long poll outside Nest's request pipeline (issue 11, target 3). The reply is hijacked
 * before the route handler returns, so Nest and Fastify count it as handled and release the request's
 * pipeline — interceptor observables, async frames, the execution context — at once; while it waits,
 * only the connection and the parked wait stay. The outcome is written as Fastify would send it: the
 * headers set so far (x-request-id…), 200 with the value as JSON, or an error through the same
 * mapping as every REST error.
 */
export function replyWhenSettled(reply: FastifyReply, outcome: Promise<unknown>): void {
  reply.hijack();
  outcome.then(
    (body) => writeJson(reply, 200, {}, body),
    (error: unknown) => {
      const { status, headers, body } = errors.errorReply(error, reply.request);
      writeJson(reply, status, headers, body);
    },
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
