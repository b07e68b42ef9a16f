import type { Server } from 'node:http';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyHttpOptions } from 'fastify';
import type { HttpErrorFilter } from './http-error.filter.js';
import { RequestBoundaryError, RequestBoundaryErrorCode } from '../input/request-boundary.error.js';

type FrameworkErrorHandler = NonNullable<FastifyHttpOptions<Server>['frameworkErrors']>;

/** A path Fastify cannot percent-decode (e.g. `%ED%A0%80`, a lone surrogate in invalid UTF-8). */
const BAD_URL = 'FST_ERR_BAD_URL';

/**
 * A Fastify adapter whose error handler — for errors Fastify raises itself (bad JSON, body too
 * large, an undecodable URL) — is the same `{error}` mapping as everything else. Fastify routes keep
 * the handler that is current when they are added, and Nest installs its own only after some routes
 * exist, so ours is installed at construction and Nest's later (equivalent) one is not applied over it.
 */
export class UniformErrorsFastifyAdapter extends FastifyAdapter {
  constructor(options: FastifyHttpOptions<Server>, errors: HttpErrorFilter) {
    const frameworkErrors: FrameworkErrorHandler = (error, request, reply) => {
      const refused =
        error.code === BAD_URL
          ? new RequestBoundaryError(RequestBoundaryErrorCode.Malformed, 'params cannot be decoded: the URL path is not valid percent-encoded UTF-8')
          : error;
      errors.reply(refused, request, reply);
    };
    super({ ...options, frameworkErrors });
    this.getInstance().setErrorHandler((error, request, reply) => errors.reply(error, request, reply));
  }

  override setErrorHandler(): ReturnType<FastifyAdapter['setErrorHandler']> {
    return this.getInstance();
  }
}
