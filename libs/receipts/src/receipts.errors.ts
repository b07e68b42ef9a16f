import { assertNever, DomainError, ErrorCode } from '#common';

export enum ReceiptErrorCode {
  InvalidArgument = 'INVALID_ARGUMENT',
}

/** The receipts module's typed error (a bad verification request: 400 naming the field). */
export class ReceiptError extends DomainError<ReceiptErrorCode> {
  constructor(code: ReceiptErrorCode, message: string) {
    super(code, message);
  }

  static invalid = (message: string) => new ReceiptError(ReceiptErrorCode.InvalidArgument, message);

  get httpStatus(): number {
    switch (this.code) {
      case ReceiptErrorCode.InvalidArgument:
        return 400;
      default:
        return assertNever(this.code);
    }
  }

  get publicCode(): ErrorCode {
    switch (this.code) {
      case ReceiptErrorCode.InvalidArgument:
        return ErrorCode.ValidationError;
      default:
        return assertNever(this.code);
    }
  }
}
