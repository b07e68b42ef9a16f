/**
 * The one vocabulary of error codes every surface speaks: REST `{"error", "code"}` bodies, GraphQL
 * `extensions.code`, MCP tool errors `{"code", "message"}`. Each module maps its own code enum onto
 * these (its DomainError's `publicCode`); errors raised by the framework map by HTTP status.
 */
export enum ErrorCode {
  ValidationError = 'VALIDATION_ERROR',
  Unauthenticated = 'UNAUTHENTICATED',
  Forbidden = 'FORBIDDEN',
  /** The caller sees the question but is not among its answerers (routing): 403. */
  NotEligible = 'NOT_ELIGIBLE',
  NotFound = 'NOT_FOUND',
  Conflict = 'CONFLICT',
  PayloadTooLarge = 'PAYLOAD_TOO_LARGE',
  UnsupportedMediaType = 'UNSUPPORTED_MEDIA_TYPE',
  RateLimited = 'RATE_LIMITED',
  InternalError = 'INTERNAL_ERROR',
  /** The database is unreachable, or a winner's delivery is not settled yet: retry shortly. */
  Unavailable = 'UNAVAILABLE',
  /** A wait for an answer ended without one (timed out, cancelled, expired, superseded, detached). */
  WaitEnded = 'WAIT_ENDED',
  /** The question's deadline passed unanswered: the asking agent must not proceed as if it were answered. */
  Expired = 'EXPIRED',
}

/** The code of an error known only by its HTTP status (Nest's HttpExceptions, Fastify's own errors). */
export function errorCodeForStatus(status: number): ErrorCode {
  switch (status) {
    case 401:
      return ErrorCode.Unauthenticated;
    case 403:
      return ErrorCode.Forbidden;
    case 404:
    case 405:
      return ErrorCode.NotFound;
    case 409:
      return ErrorCode.Conflict;
    case 413:
      return ErrorCode.PayloadTooLarge;
    case 415:
      return ErrorCode.UnsupportedMediaType;
    case 429:
      return ErrorCode.RateLimited;
    case 503:
      return ErrorCode.Unavailable;
    case 504:
      return ErrorCode.WaitEnded;
    default:
      return status >= 400 && status < 500 ? ErrorCode.ValidationError : ErrorCode.InternalError;
  }
}
