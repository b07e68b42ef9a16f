import type { ErrorBody, ServerErrorCode } from './wire.types.js';

/** Every code a ParleyError carries: the server's, and the client's own for what never reached it. */
export type ParleyErrorCode = ServerErrorCode | 'UNREACHABLE' | 'ABORTED' | 'ALREADY_RESUMED' | 'UNEXPECTED_RESPONSE';

/** Base of every error the client throws; `code` is the server's error code when the server sent one. */
export class ParleyError extends Error {
  override readonly name: string = 'ParleyError';
  constructor(
    readonly code: ParleyErrorCode,
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    /** The server's x-request-id (sent on 500 and 503): quote it when reporting. */
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** 400: the message names the field; nothing was changed. */
export class ParleyValidationError extends ParleyError {
  override readonly name = 'ParleyValidationError';
}
/** 401 or 403: no valid credential, or one that may not do this. */
export class ParleyAuthError extends ParleyError {
  override readonly name = 'ParleyAuthError';
}
/** 404: unknown, or not the caller's (the server does not tell the two apart). */
export class ParleyNotFoundError extends ParleyError {
  override readonly name = 'ParleyNotFoundError';
}
/** 409: the bundle is no longer active (superseded, expired, cancelled, the session ended). */
export class ParleyConflictError extends ParleyError {
  override readonly name = 'ParleyConflictError';
}
/** 429: `retryAfterMs` says when to try again. */
export class ParleyRateLimitedError extends ParleyError {
  override readonly name = 'ParleyRateLimitedError';
  constructor(code: ParleyErrorCode, message: string, status: number, requestId: string | undefined, readonly retryAfterMs: number | undefined) {
    super(code, message, status, requestId);
  }
}
/** 5xx: the server (or its database) is unavailable or failed; retrying later may succeed. */
export class ParleyServerError extends ParleyError {
  override readonly name = 'ParleyServerError';
}
/** The server could not be reached at all (refused, reset, DNS): `cause` is the network error. */
export class ParleyUnreachableError extends ParleyError {
  override readonly name = 'ParleyUnreachableError';
  constructor(url: string, cause: unknown) {
    super('UNREACHABLE', `Parley is not reachable at ${url}: ${describeNetworkError(cause)}`);
    this.cause = cause;
  }
}
/** The caller's AbortSignal fired. */
export class ParleyAbortedError extends ParleyError {
  override readonly name = 'ParleyAbortedError';
  constructor() {
    super('ABORTED', 'the operation was aborted');
  }
}
/** `resume()` of a bundle whose answer this agent's ledger already handed over. */
export class ParleyAlreadyResumedError extends ParleyError {
  override readonly name = 'ParleyAlreadyResumedError';
  constructor(readonly pendingId: string) {
    super('ALREADY_RESUMED', `the answer of ${pendingId} was already handed to this agent (its resume ledger says so)`);
  }
}

/** fetch's "fetch failed" hides the reason in `cause` (ECONNREFUSED, ECONNRESET, …): show it. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) return `${error.message} (${(cause as NodeJS.ErrnoException).code ?? cause.message})`;
  return error.message;
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error === 'string';
}

function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

/** The typed error of a non-2xx response, by status, carrying the body's `code` and `error`. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): ParleyError {
  const known = isErrorBody(body);
  const message = known ? body.error : `unexpected ${status} response`;
  const code: ParleyErrorCode = known ? body.code : 'UNEXPECTED_RESPONSE';
  const requestId = (known ? body.request_id : undefined) ?? headers.get('x-request-id') ?? undefined;
  if (status === 400 || status === 413 || status === 415) return new ParleyValidationError(code, message, status, requestId);
  if (status === 401 || status === 403) return new ParleyAuthError(code, message, status, requestId);
  if (status === 404) return new ParleyNotFoundError(code, message, status, requestId);
  if (status === 409) return new ParleyConflictError(code, message, status, requestId);
  if (status === 429) return new ParleyRateLimitedError(code, message, status, requestId, retryAfterMs(headers));
  if (status >= 500) return new ParleyServerError(code, message, status, requestId);
  return new ParleyError(code, message, status, requestId);
}

/**
 * Whether trying the same request again may succeed: the server unreachable or restarting, its
 * database away (503), an internal error, a rate limit. 4xx answers are final.
 */
export function isTransient(error: unknown): boolean {
  return error instanceof ParleyUnreachableError || error instanceof ParleyServerError || error instanceof ParleyRateLimitedError;
}
