import { assertNever, DomainError, ErrorCode } from '#common';

export enum ChatErrorCode {
  /** No such user or workspace, a platform that is not configured — or not the caller's to manage (the same answer). */
  NotFound = 'NOT_FOUND',
  InvalidArgument = 'INVALID_ARGUMENT',
  /** A platform request whose signature or secret does not check out: nothing was done. */
  BadSignature = 'BAD_SIGNATURE',
}

export class ChatError extends DomainError<ChatErrorCode> {
  constructor(code: ChatErrorCode, message: string) {
    super(code, message);
  }

  static notFound = (what: string) => new ChatError(ChatErrorCode.NotFound, `${what} not found`);
  static invalid = (message: string) => new ChatError(ChatErrorCode.InvalidArgument, message);
  static badSignature = (message: string) => new ChatError(ChatErrorCode.BadSignature, message);

  get httpStatus(): number {
    switch (this.code) {
      case ChatErrorCode.NotFound:
        return 404;
      case ChatErrorCode.InvalidArgument:
        return 400;
      case ChatErrorCode.BadSignature:
        return 401;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case ChatErrorCode.NotFound:
        return ErrorCode.NotFound;
      case ChatErrorCode.InvalidArgument:
        return ErrorCode.ValidationError;
      case ChatErrorCode.BadSignature:
        return ErrorCode.Unauthenticated;
      default:
        return assertNever(this.code);
    }
  }
}
