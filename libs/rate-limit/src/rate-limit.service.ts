import { Inject, Injectable } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '#config';
import { RateLimitError } from './rate-limit.errors.js';
import { type RateLimitDecision, RateLimitKind } from './rate-limit.policy.js';

/**
 * Fixed-window budgets per kind and key, in this process's memory (rate-limiter-flexible):
 * a replica counts only what it serves, so N replicas allow up to N times each limit (docs/configuration.md, "Rate limits").
 */
@Injectable()
export class RateLimitService {
  private readonly limiters: Map<RateLimitKind, RateLimiterMemory>;
  private readonly windowSeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const limits = config.rateLimits;
    this.windowSeconds = limits.windowSeconds;
    const points: Record<RateLimitKind, number> = {
      [RateLimitKind.SignIn]: limits.signIn,
      [RateLimitKind.FailedCredentials]: limits.failedCredentials,
      [RateLimitKind.Answers]: limits.answers,
      [RateLimitKind.Lists]: limits.lists,
      [RateLimitKind.Asks]: limits.asks,
    };
    this.limiters = new Map(
      Object.values(RateLimitKind).map((kind) => [kind, new RateLimiterMemory({ keyPrefix: kind, points: points[kind], duration: limits.windowSeconds })]),
    );
  }

  private limiter(kind: RateLimitKind): RateLimiterMemory {
    return this.limiters.get(kind) as RateLimiterMemory;
  }

  private decision(kind: RateLimitKind, result: RateLimiterRes, allowed: boolean): RateLimitDecision {
    const limit = this.limiter(kind).points;
    return {
      kind,
      allowed,
      limit,
      windowSeconds: this.windowSeconds,
      remaining: Math.max(0, limit - result.consumedPoints),
      resetSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
    };
  }

  /** Spends `points` of `key`'s budget; the decision says whether they were within it. */
  async consume(kind: RateLimitKind, key: string, points = 1): Promise<RateLimitDecision> {
    try {
      return this.decision(kind, await this.limiter(kind).consume(key, points), true);
    } catch (outcome) {
      if (outcome instanceof RateLimiterRes) return this.decision(kind, outcome, false);
      throw outcome;
    }
  }

  /** Like consume, but a spent budget throws RateLimitError (429 on every surface). */
  async spend(kind: RateLimitKind, key: string, points = 1): Promise<RateLimitDecision> {
    const decision = await this.consume(kind, key, points);
    if (!decision.allowed) throw new RateLimitError(decision);
    return decision;
  }

  /** The current decision for `key` without spending anything (allowed while budget is left). */
  async peek(kind: RateLimitKind, key: string): Promise<RateLimitDecision | undefined> {
    const result = await this.limiter(kind).get(key);
    if (!result) return undefined;
    return this.decision(kind, result, result.consumedPoints < this.limiter(kind).points);
  }
}
