import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from './database-unavailable.js';
import { DomainError } from './domain-error.js';
import { ErrorCode, errorCodeForStatus } from './error-code.js';
import { RequestBoundaryError, surfaceOf } from '../input/request-boundary.error.js';

/** The challenge every 401 carries (RFC 6750: bearer tokens; the session cookie holds the same token). */
export const BEARER_CHALLENGE = 'Bearer realm="parley"';

/** Every REST error: the message (some keep the reference's exact wording), its code (docs/operations.md, "Error codes"). */
export interface ErrorBody {
  error: string;
  code: ErrorCode;
  request_id?: string;
}

interface FastifyErrorLike {
  statusCode?: number;
  message: string;
}

function isClientFastifyError(error: unknown): error is FastifyErrorLike {
  const statusCode = (error as FastifyErrorLike | undefined)?.statusCode;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

function messageOf(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.join('; ');
  if (typeof message === 'string') return message;
  return exception.message;
}

function byStatus(status: number, error: string): { status: number; body: ErrorBody } {
  return { status, body: { error, code: errorCodeForStatus(status) } };
}

/** Where an error's log line goes (Nest's logger, or a request's own pino logger). */
export interface ErrorLog {
  warn(entry: object): void;
  error(entry: object): void;
}

/**
 * The one mapping of every error onto a REST `{error, code}` body: typed errors carry their module's
 * status and public code, framework errors are coded by status; internal errors are logged, never leaked.
 */
export function toErrorResponse(exception: unknown, requestId: string, logger: ErrorLog): { status: number; body: ErrorBody } {
  if (exception instanceof DomainError) {
    return { status: exception.httpStatus, body: { error: exception.message, code: exception.publicCode } };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status < 500 || status === 503) return byStatus(status, messageOf(exception));
  } else if (isClientFastifyError(exception)) {
    return byStatus(exception.statusCode ?? 400, exception.message);
  }
  if (isDatabaseUnavailable(exception)) {
    logger.warn({ msg: 'database unavailable', err: describe(exception).message });
    return { status: 503, body: { error: DATABASE_UNAVAILABLE_MESSAGE, code: ErrorCode.Unavailable, request_id: requestId } };
  }
  logger.error({ msg: 'internal error', err: describe(exception) });
  return { status: 500, body: { error: 'internal error', code: ErrorCode.InternalError, request_id: requestId } };
}

function describe(exception: unknown): { message: string; stack?: string } {
  if (exception instanceof Error) return { message: exception.message, stack: exception.stack };
  return { message: String(exception) };
}

@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  /** HTTP errors become `{error, code}` bodies; other contexts (GraphQL) map their own errors, so they pass through. */
  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType() !== 'http') return exception;
    const context = host.switchToHttp();
    this.reply(exception, context.getRequest<FastifyRequest>(), context.getResponse<FastifyReply>());
    return undefined;
  }

  reply(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, headers, body } = this.errorReply(exception, request);
    void reply.headers(headers).status(status).send(body);
  }

  /**
   * Status, headers and body of the error's response — for a reply Fastify sends, or one written raw
   * (a parked long poll: it ends outside its request's async context, so it passes that request's logger).
   */
  errorReply(
    exception: unknown,
    request: Pick<FastifyRequest, 'id' | 'url'>,
    log: ErrorLog = this.logger,
  ): { status: number; headers: Record<string, string>; body: unknown } {
    if (exception instanceof RequestBoundaryError) {
      return { status: exception.httpStatus, headers: {}, body: exception.bodyFor(surfaceOf(request.url)) };
    }
    const { status, body } = toErrorResponse(exception, String(request.id), log);
    const headers: Record<string, string> = {};
    // RFC 9110 §15.5.2: a 401 names the scheme the client should authenticate with.
    if (status === 401) headers['www-authenticate'] = BEARER_CHALLENGE;
    if (status === 503) headers['retry-after'] = '2';
    return { status, headers, body };
  }
}
