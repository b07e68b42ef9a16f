import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { sameOriginHook } from '../../../libs/authorization/src/index.js';
import {
  createValidationPipe,
  HttpErrorFilter,
  jsonOnlyHook,
  parseJsonBody,
  StorableTextPipe,
  storableUrlHook,
  UniformErrorsFastifyAdapter,
} from '../../../libs/common/src/index.js';
import { type AppConfig, type LogLevel, unauthenticatedNetworkWarning } from '../../../libs/config/src/index.js';
import { AppModule } from './app.module.js';
import { registerWebAssets } from './web-assets.js';

const NEST_LEVELS: Record<LogLevel, NestLogLevel[]> = {
  silent: [],
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** The one body parser: JSON, bounded while it is parsed (every other media type is refused with 415). */
function installJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/** Builds the whole application (not yet listening) from a validated configuration. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const errors = new HttpErrorFilter();
  const adapter = new UniformErrorsFastifyAdapter(
    {
      logger: { level: config.logLevel },
      bodyLimit: config.bodyLimitBytes,
      requestIdHeader: 'x-request-id',
      genReqId: () => randomUUID(),
      // Slow clients: a socket still sending its headers or body after these is closed. They bound
      // receiving a request only, so long polls, SSE and WebSockets (whose requests are complete) run on.
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      http: { headersTimeout: config.headersTimeoutMs, connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs) },
    },
    errors,
  );
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new ConsoleLogger({ json: true, logLevels: NEST_LEVELS[config.logLevel] }),
    abortOnError: false,
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(fastifyCookie);
  await registerWebAssets(fastify);
  installJsonBodyParser(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  fastify.addHook('onRequest', sameOriginHook(config.publicUrl));
  fastify.addHook('onRequest', jsonOnlyHook);
  fastify.addHook('onRequest', storableUrlHook);
  app.useGlobalPipes(new StorableTextPipe(), createValidationPipe());
  app.useGlobalFilters(errors);
  // Only these two: SIGUSR2 / SIGHUP (heap snapshots, log rotation) must not stop the server.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  const exposure = unauthenticatedNetworkWarning(config);
  if (exposure) fastify.log.warn({ host: config.host, auth_mode: config.authMode }, exposure);
  return app;
}
