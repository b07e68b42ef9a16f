import { assertNever, DomainError, ErrorCode } from '#common';

export enum WebhookErrorCode {
  /** No such workspace or subscription — or not the caller's to manage (the same answer). */
  NotFound = 'NOT_FOUND',
  InvalidArgument = 'INVALID_ARGUMENT',
  /** The workspace already has as many subscriptions as it may. */
  LimitReached = 'LIMIT_REACHED',
}

export class WebhookError extends DomainError<WebhookErrorCode> {
  constructor(code: WebhookErrorCode, message: string) {
    super(code, message);
  }

  static workspaceNotFound = () => new WebhookError(WebhookErrorCode.NotFound, 'workspace not found');
  static subscriptionNotFound = () => new WebhookError(WebhookErrorCode.NotFound, 'webhook not found');
  static invalid = (message: string) => new WebhookError(WebhookErrorCode.InvalidArgument, message);

  get httpStatus(): number {
    switch (this.code) {
      case WebhookErrorCode.NotFound:
        return 404;
      case WebhookErrorCode.InvalidArgument:
        return 400;
      case WebhookErrorCode.LimitReached:
        return 409;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case WebhookErrorCode.NotFound:
        return ErrorCode.NotFound;
      case WebhookErrorCode.InvalidArgument:
        return ErrorCode.ValidationError;
      case WebhookErrorCode.LimitReached:
        return ErrorCode.Conflict;
      default:
        return assertNever(this.code);
    }
  }
}
