import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import { ConsoleLogger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createValidationPipe, HttpErrorFilter, UniformErrorsFastifyAdapter } from '../../../libs/common/src/index.js';
import type { AppConfig, LogLevel } from '../../../libs/config/src/index.js';
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

/** Builds the whole application (not yet listening) from a validated configuration. */
export async function createApp(config: AppConfig): Promise<NestFastifyApplication> {
  const errors = new HttpErrorFilter();
  const adapter = new UniformErrorsFastifyAdapter(
    {
      logger: { level: config.logLevel },
      bodyLimit: config.bodyLimitBytes,
      requestIdHeader: 'x-request-id',
      genReqId: () => randomUUID(),
    },
    errors,
  );
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: new ConsoleLogger({ json: true, logLevels: NEST_LEVELS[config.logLevel] }),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  await fastify.register(fastifyCookie);
  await registerWebAssets(fastify);
  fastify.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(errors);
  // Only these two: SIGUSR2 / SIGHUP (heap snapshots, log rotation) must not stop the server.
  app.enableShutdownHooks(['SIGTERM', 'SIGINT']);
  return app;
}
