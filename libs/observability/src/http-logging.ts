import { randomUUID } from 'node:crypto';
import { type FastifyServerOptions, LogController } from 'fastify';
import type { Logger } from 'pino';
import { traceIdOf } from './trace-context.js';

/** The request id every log line of a request carries (Fastify's and pino-http's own name for it). */
export const REQUEST_ID_LOG_KEY = 'reqId';

/**
 * Fastify logs through the process's root logger: each request's logger is a child bound to its
 * request id (the incoming `x-request-id`, else a new UUID) and, when the caller sent a W3C
 * `traceparent`, its `trace_id` — so every line written while serving it carries both.
 */
export function fastifyLogging(root: Logger): Pick<FastifyServerOptions, 'loggerInstance' | 'requestIdHeader' | 'logController' | 'genReqId' | 'childLoggerFactory'> {
  return {
    loggerInstance: root,
    requestIdHeader: 'x-request-id',
    logController: new LogController({ requestIdLogLabel: REQUEST_ID_LOG_KEY }),
    genReqId: () => randomUUID(),
    childLoggerFactory: (logger, bindings, options, rawRequest) => {
      const traceId = traceIdOf((rawRequest).headers.traceparent);
      return logger.child(traceId ? { ...bindings, trace_id: traceId } : bindings, options);
    },
  };
}
