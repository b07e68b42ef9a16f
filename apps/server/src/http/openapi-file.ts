import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { loadConfig } from '#config';
import { createRootLogger } from '#observability';
import { AppModule } from '../app.module.js';
import { buildOpenApiDocument } from './api-docs.js';

/** Where the committed OpenAPI document lives (the typed client's types are generated from it). */
export const OPENAPI_FILE = 'docs/api/openapi.json';

/**
 * The OpenAPI document as committed: built from the controllers' metadata by a Nest application in
 * preview mode (modules scanned, no provider instantiated), so it needs no database and no port.
 */
export async function buildOpenApiFile(): Promise<string> {
  const app = await NestFactory.create(AppModule.forRoot(loadConfig({}), createRootLogger('silent')), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  } finally {
    await app.close();
  }
}
