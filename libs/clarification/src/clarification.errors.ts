import { assertNever, DomainError } from '../../common/src/index.js';

export enum ClarificationErrorCode {
  NotFound = 'NOT_FOUND',
  Validation = 'VALIDATION_ERROR',
  NotActive = 'CONFLICT',
  SessionEnded = 'SESSION_ENDED',
  WaitEnded = 'WAIT_ENDED',
  DeliveryFailed = 'DELIVERY_FAILED',
  Internal = 'INTERNAL_ERROR',
}

export class ClarificationError extends DomainError<ClarificationErrorCode> {
  constructor(code: ClarificationErrorCode, message: string) {
    super(code, message);
  }

  static notFound = () => new ClarificationError(ClarificationErrorCode.NotFound, 'clarification request not found');
  static validation = (message: string) => new ClarificationError(ClarificationErrorCode.Validation, message);
  static notActive = () => new ClarificationError(ClarificationErrorCode.NotActive, 'clarification request is no longer active');

  get httpStatus(): number {
    switch (this.code) {
      case ClarificationErrorCode.NotFound:
        return 404;
      case ClarificationErrorCode.Validation:
        return 400;
      case ClarificationErrorCode.NotActive:
      case ClarificationErrorCode.SessionEnded:
        return 409;
      case ClarificationErrorCode.WaitEnded:
        return 504;
      case ClarificationErrorCode.DeliveryFailed:
      case ClarificationErrorCode.Internal:
        return 500;
      default:
        return assertNever(this.code);
    }
  }
}
