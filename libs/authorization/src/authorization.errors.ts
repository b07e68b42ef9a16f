import { assertNever, DomainError, ErrorCode } from '#common';

export enum AuthorizationErrorCode {
  Unauthenticated = 'UNAUTHENTICATED',
  NotFound = 'NOT_FOUND',
  /** The caller sees the thing but holds no right to this act on it. */
  Forbidden = 'FORBIDDEN',
  InvalidArgument = 'INVALID_ARGUMENT',
}

export class AuthorizationError extends DomainError<AuthorizationErrorCode> {
  constructor(code: AuthorizationErrorCode, message: string) {
    super(code, message);
  }

  static unauthenticated(message = 'authentication required'): AuthorizationError {
    return new AuthorizationError(AuthorizationErrorCode.Unauthenticated, message);
  }

  static notFound(resource: string): AuthorizationError {
    return new AuthorizationError(AuthorizationErrorCode.NotFound, `${resource} not found`);
  }

  static forbidden(message: string): AuthorizationError {
    return new AuthorizationError(AuthorizationErrorCode.Forbidden, message);
  }

  get httpStatus(): number {
    switch (this.code) {
      case AuthorizationErrorCode.Unauthenticated:
        return 401;
      case AuthorizationErrorCode.NotFound:
        return 404;
      case AuthorizationErrorCode.Forbidden:
        return 403;
      case AuthorizationErrorCode.InvalidArgument:
        return 400;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case AuthorizationErrorCode.Unauthenticated:
        return ErrorCode.Unauthenticated;
      case AuthorizationErrorCode.NotFound:
        return ErrorCode.NotFound;
      case AuthorizationErrorCode.Forbidden:
        return ErrorCode.Forbidden;
      case AuthorizationErrorCode.InvalidArgument:
        return ErrorCode.ValidationError;
      default:
        return assertNever(this.code);
    }
  }
}
