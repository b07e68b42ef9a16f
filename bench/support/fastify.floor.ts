/**
 * The floor of a long poll with the framework and no application: Fastify (the application's
 * version) with the application's server options — its logging (`fastifyLogging`: root Pino logger,
 * `x-request-id`, a child logger per request), body limit and timeouts — and one route, the `/wait`
 * path, that hijacks the reply and parks `reply.raw`. Nest, the application's plugins and hooks are
 * not here: they are the application's share.
 */
import Fastify from 'fastify';
import { loadConfig } from '#config';
import { createRootLogger, fastifyLogging } from '#observability';
import { listenAddress, ParkedResponses } from './parked-responses.js';

const config = loadConfig({ LOG_LEVEL: process.env.LOG_LEVEL });
const parked = new ParkedResponses();
const fastify = Fastify({
  ...fastifyLogging(createRootLogger(config.logLevel)),
  bodyLimit: config.bodyLimitBytes,
  requestTimeout: config.requestTimeoutMs,
  keepAliveTimeout: config.keepAliveTimeoutMs,
  http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
});
fastify.get('/healthz', () => ({ status: 'ok' }));
fastify.get('/api/v1/clarification/:id/wait', (_request, reply) => {
  reply.hijack();
  parked.park(reply.raw);
});
parked.serveParent();
await fastify.listen(listenAddress());
