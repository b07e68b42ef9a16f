import mercurius from 'mercurius';
import { AuthorizationError, AuthorizationErrorCode } from '#authorization';
import { DATABASE_UNAVAILABLE_MESSAGE, DomainError, ErrorCode, isDatabaseUnavailable } from '#common';
import { RateLimitError } from '#rate-limit';

/** Every module's typed errors as GraphQL errors carrying their public code in `extensions.code`. */
export function toGraphqlError(error: unknown): Error {
  if (error instanceof mercurius.ErrorWithProps) return error;
  if (error instanceof RateLimitError) {
    return new mercurius.ErrorWithProps(error.message, { code: error.publicCode, retryAfterSeconds: error.decision.resetSeconds }, 429);
  }
  if (error instanceof AuthorizationError && error.code === AuthorizationErrorCode.Unauthenticated) {
    return new mercurius.ErrorWithProps(error.message, { code: error.publicCode }, 401);
  }
  if (error instanceof DomainError) return new mercurius.ErrorWithProps(error.message, { code: error.publicCode });
  if (isDatabaseUnavailable(error)) {
    return new mercurius.ErrorWithProps(DATABASE_UNAVAILABLE_MESSAGE, { code: ErrorCode.Unavailable }, 503);
  }
  return new mercurius.ErrorWithProps('internal error', { code: ErrorCode.InternalError });
}
