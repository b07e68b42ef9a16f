import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '#config';
import { type RateLimitDecision, RateLimitKind } from './rate-limit.policy.js';
import { RATE_LIMIT_TABLE, RateLimitRepository } from './rate-limit.repository.js';

type Limiter = RateLimiterMemory | RateLimiterPostgres;

/**
 * Fixed-window budgets per kind and key (rate-limiter-flexible), counted where RATE_LIMIT_STORE says
 * (docs/configuration.md, "Rate limits"):
 *
 * - `postgres`: in the `rate_limits` table every replica shares — one upsert per spend on the
 *   limiter's own small pool. A key that reached its limit is refused from this process's memory
 *   until its window ends (no round trip), and while the database is unreachable (or a statement
 *   exceeds its short bound) an in-memory insurance limiter counts instead.
 * - `memory`: in this process's memory only, for a single process.
 */
@Injectable()
export class RateLimitService {
  private readonly limiters: Map<RateLimitKind, Limiter>;
  private readonly windowSeconds: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    store: RateLimitRepository,
  ) {
    const limits = config.rateLimits;
    this.windowSeconds = limits.windowSeconds;
    const shared = config.rateLimitStore === 'postgres';
    const points: Record<RateLimitKind, number> = {
      [RateLimitKind.SignIn]: limits.signIn,
      [RateLimitKind.FailedCredentials]: limits.failedCredentials,
      [RateLimitKind.Answers]: limits.answers,
      [RateLimitKind.Lists]: limits.lists,
      [RateLimitKind.Asks]: limits.asks,
      [RateLimitKind.Creations]: limits.creations,
      [RateLimitKind.Verifications]: limits.verifications,
    };
    const kinds = Object.values(RateLimitKind);
    this.limiters = new Map<RateLimitKind, Limiter>(
      kinds.map((kind, index): [RateLimitKind, Limiter] => {
        const options = { keyPrefix: kind, points: points[kind], duration: limits.windowSeconds };
        if (!shared) return [kind, new RateLimiterMemory(options)];
        const limiter = new RateLimiterPostgres({
          ...options,
          storeClient: store.storeClient,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          // Reaching the limit blocks the key in memory until its window ends: a spent key costs no round trip.
          inMemoryBlockOnConsumed: points[kind],
          insuranceLimiter: new RateLimiterMemory(options),
          // One table for every kind: one limiter's periodic deletion of rows expired over an hour ago serves all.
          clearExpiredByTimeout: index === 0,
        });
        return [kind, limiter];
      }),
    );
  }

  private limiter(kind: RateLimitKind): Limiter {
    return this.limiters.get(kind) as Limiter;
  }

  private decision(kind: RateLimitKind, result: RateLimiterRes, allowed: boolean): RateLimitDecision {
    const limit = this.limiter(kind).points;
    return {
      kind,
      allowed,
      limit,
      windowSeconds: this.windowSeconds,
      // A refusal from the in-memory block carries no count: nothing is left either way.
      remaining: allowed ? Math.max(0, limit - result.consumedPoints) : 0,
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
    };
  }

  /** Spends `points` of `key`'s budget; the decision says whether they were within it. */
  async consume(kind: RateLimitKind, key: string, points = 1): Promise<RateLimitDecision> {
    try {
      return this.decision(kind, await this.limiter(kind).consume(key, points), true);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      return this.decision(kind, outcome, false);
    }
  }
}
