import type { FastifyReply } from 'fastify';
import { HttpErrorFilter } from './http-error.filter.js';

const errors = new HttpErrorFilter();

/**
 * Answers a long poll outside Nest's request pipeline: the route handler returns as soon as the wait
 * is parked, so the interceptor chain, its observables and the handler's async frames are released
 * while it waits (issue 11, target 3) — only the reply and the parked wait stay. The outcome is sent
 * as Nest would send it: 200 with the value, or the error through the same mapping as every REST error.
 */
export function replyWhenSettled(reply: FastifyReply, outcome: Promise<unknown>): void {
  outcome.then(
    (body) => {
      if (!reply.sent) void reply.status(200).send(body);
    },
    (error: unknown) => {
      if (!reply.sent) errors.reply(error, reply.request, reply);
    },
  );
}
