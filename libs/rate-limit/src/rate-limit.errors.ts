import { DomainError, ErrorCode } from '#common';
import type { RateLimitDecision } from './rate-limit.policy.js';

export enum RateLimitErrorCode {
  RateLimited = 'RATE_LIMITED',
}

/** A budget is spent: 429 with Retry-After on every surface, in that surface's error shape. */
export class RateLimitError extends DomainError<RateLimitErrorCode> {
  constructor(readonly decision: RateLimitDecision) {
    super(
      RateLimitErrorCode.RateLimited,
      `rate limit exceeded: at most ${decision.limit} ${decision.kind.replace('_', ' ')} per ${decision.windowSeconds} s; retry after ${decision.resetSeconds} s`,
    );
  }

  get httpStatus(): number {
    return 429;
  }

  get publicCode(): ErrorCode {
    return ErrorCode.RateLimited;
  }
}
