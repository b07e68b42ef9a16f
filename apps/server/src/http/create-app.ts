import fastifyCookie from '@fastify/cookie';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { hostCheckHook, RequestHosts, sameOriginHook } from '#authorization';
import {
  createValidationPipe,
  endRefusedUpgradeHook,
  HttpErrorFilter,
  isConnectorRoute,
  jsonOnlyHook,
  parseJsonBody,
  securityHeadersHook,
  StorableTextPipe,
  storableUrlHook,
  UniformErrorsFastifyAdapter,
} from '#common';
import { type AppConfig, type TrustProxy, unauthenticatedNetworkWarning } from '#config';
import { createRootLogger, fastifyLogging, ParleyMetrics } from '#observability';
import { Logger } from 'nestjs-pino';
import { registerApiDocs } from './api-docs.js';
import { AppModule } from '../app.module.js';
import { corsOptions } from './cors-options.js';
import { registerWebAssets } from './web-assets.js';

/**
 * The one body parser: JSON, bounded while it is parsed (every other media type is refused with 415).
 * The chat connectors get their bodies raw — a signature covers the exact bytes — and only they may
 * send a form (jsonOnlyHook).
 */
function installJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    if (isConnectorRoute(request.url)) return done(null, body);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
}

/**
 * Fastify's trustProxy from TRUST_PROXY. A hop count becomes a function, since Fastify trusts nobody
 * for a bare number (it cannot tell the proxy from a direct client): whoever sets one has said that
 * only their proxies reach this server.
 */
function trustProxyOption(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}

/** Builds the whole application (not yet listening) from a validated configuration. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const errors = new HttpErrorFilter();
  const logger = createRootLogger(config.logLevel);
  const adapter = new UniformErrorsFastifyAdapter(
    {
      ...fastifyLogging(logger),
      bodyLimit: config.bodyLimitBytes,
      // Whose address request.ip is, and so whose budget an address budget is (docs/configuration.md).
      trustProxy: trustProxyOption(config.trustProxy),
      // Slow clients: a socket still sending its headers or body after these is closed. They bound
      // receiving a request only, so long polls, SSE and WebSockets (whose requests are complete) run on.
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
    },
    errors,
  );
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, logger), adapter, {
    bufferLogs: true,
    abortOnError: false,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  const fastify = app.getHttpAdapter().getInstance();
  const hosts = new RequestHosts(config);
  // Before any route is added: every route's reply gets them, and a request for a Host this server
  // does not serve (a rebound DNS name) does no work at all.
  fastify.addHook('onSend', securityHeadersHook);
  fastify.addHook('onRequest', hostCheckHook(hosts));
  fastify.addHook('onResponse', endRefusedUpgradeHook);
  if (config.corsOrigins.length > 0) app.enableCors(corsOptions(config.corsOrigins));
  // Set-Cookie only: the one cookie read (the session) is read from the header where it is needed, so a
  // request — a parked /wait for minutes — holds no parsed-cookie object or set-cookie map (less heap per waiter: docs/benchmarks.md, "Waiters").
  await fastify.register(fastifyCookie, { hook: false });
  await registerWebAssets(fastify);
  installJsonBodyParser(fastify);
  const metrics = app.get(ParleyMetrics);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  // Once the response is written — hijacked replies (MCP streams, a parked /wait) too; Fastify's own
  // listener, so a request holds no listener of ours while it waits (less heap per waiter).
  fastify.addHook('onResponse', (request, reply, done) => {
    metrics.httpRequest(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
    done();
  });
  fastify.addHook('onRequest', sameOriginHook(hosts));
  fastify.addHook('onRequest', jsonOnlyHook);
  fastify.addHook('onRequest', storableUrlHook);
  app.useGlobalPipes(new StorableTextPipe(), createValidationPipe());
  app.useGlobalFilters(errors);
  registerApiDocs(app);
  // Only these two: SIGUSR2 / SIGHUP (heap snapshots, log rotation) must not stop the server.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  const exposure = unauthenticatedNetworkWarning(config);
  if (exposure) fastify.log.warn({ host: config.host, auth_mode: config.authMode }, exposure);
  return app;
}
