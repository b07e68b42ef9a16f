import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { HttpErrorFilter } from './http-error.filter.js';

/**
 * A Fastify adapter whose error handler — for errors Fastify raises itself (bad JSON, body too
 * large) — is the same `{error}` mapping as everything else. Fastify routes keep the handler that
 * is current when they are added, and Nest installs its own only after some routes exist, so ours
 * is installed at construction and Nest's later (equivalent) one is not applied over it.
 */
export class UniformErrorsFastifyAdapter extends FastifyAdapter {
  constructor(options: FastifyHttpOptions<Server>, errors: HttpErrorFilter) {
    super(options);
    this.getInstance().setErrorHandler((error, request, reply) => errors.reply(error, request, reply));
  }

  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance();
  }
}
