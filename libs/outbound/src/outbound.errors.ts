import { DomainError, ErrorCode } from '#common';

export enum OutboundErrorCode {
  InvalidTarget = 'INVALID_TARGET',
}

/** A target a caller supplied that the outbound policy refuses: a 400 naming the caller's field. */
export class OutboundError extends DomainError<OutboundErrorCode> {
  constructor(code: OutboundErrorCode, message: string) {
    super(code, message);
  }

  static invalidTarget = (field: string, refusal: string) => new OutboundError(OutboundErrorCode.InvalidTarget, `${field} ${refusal}`);

  get httpStatus(): number {
    return 400;
  }

  get publicCode(): ErrorCode {
    return ErrorCode.ValidationError;
  }
}
