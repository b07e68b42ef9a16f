import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createValidationPipe, HttpErrorFilter } from '../../../libs/common/src/index.js';
import type { AppConfig, LogLevel } from '../../../libs/config/src/index.js';
import { AppModule } from './app.module.js';

const NEST_LEVELS: Record<LogLevel, NestLogLevel[]> = {
  silent: [],
  fatal: ['fatal'],
  error: ['fatal', 'error'],
  warn: ['fatal', 'error', 'warn'],
  info: ['fatal', 'error', 'warn', 'log'],
  debug: ['fatal', 'error', 'warn', 'log', 'debug'],
  trace: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
};

/** Builds the whole application (not yet listening) from a validated configuration. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
  });
  const errors = new HttpErrorFilter();
  // Set before any route exists (routes keep the handler current when they are added): errors raised by
  // Fastify itself (bad JSON, body too large) get the same `{error}` body as the rest.
  adapter.getInstance().setErrorHandler((error, request, reply) => errors.reply(error, request, reply));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new ConsoleLogger({ json: true, logLevels: NEST_LEVELS[config.logLevel] }),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(fastifyCookie);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(errors);
  app.enableShutdownHooks();
  return app;
}
