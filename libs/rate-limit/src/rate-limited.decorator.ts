import { SetMetadata } from '@nestjs/common';
import type { RateLimitKind } from './rate-limit.policy.js';

export const RATE_LIMITED = 'parley:rate-limited';

/** The REST route spends one unit of `kind` per request (RateLimitInterceptor). */
export const RateLimited = (kind: RateLimitKind) => SetMetadata(RATE_LIMITED, kind);
