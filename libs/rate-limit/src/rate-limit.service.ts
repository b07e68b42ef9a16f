import { Inject, Injectable, Logger } from '@nestjs/common';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { APP_CONFIG, type AppConfig } from '#config';
import { DatabaseListener } from '#persistence';
import { RateLimitError } from './rate-limit.errors.js';
import { type RateLimitDecision, RateLimitKind } from './rate-limit.policy.js';
import { RATE_LIMIT_TABLE, RateLimitRepository, SPENT_CHANNEL, type SpentKey } from './rate-limit.repository.js';
import { WindowedKeys } from './windowed-keys.js';

type Limiter = RateLimiterMemory | RateLimiterPostgres;

const isSpentKey = (value: unknown): value is SpentKey =>
  typeof value === 'object' && value !== null && typeof (value as SpentKey).key === 'string' && typeof (value as SpentKey).expire === 'number';

/**
 * Fixed-window budgets per kind and key (rate-limiter-flexible), counted where RATE_LIMIT_STORE says
 * (docs/configuration.md, "Rate limits"):
 *
 * - `postgres`: in the `rate_limits` table every replica shares — one upsert per spend on the
 *   limiter's own small pool. A key that reached its limit is refused from this process's memory
 *   until its window ends (no round trip), and while the database is unreachable (or a statement
 *   exceeds its short bound) an in-memory insurance limiter counts instead.
 * - `memory`: in this process's memory only, for a single process.
 *
 * The failed-credential budget is peeked on every request that presents a credential, so the peek
 * reaches the database only for an address this process itself saw fail in the current window (one
 * round trip per such request; every other authenticated request costs none). Besides, a replica
 * refuses from memory the addresses it knows to be spent: its own spends that reached the limit, and
 * the ones the other replicas announce (NOTIFY) the moment theirs do — so an address that never
 * failed here is refused here within a notification's delivery of being spent elsewhere.
 */
@Injectable()
export class RateLimitService {
  private readonly logger = new Logger('RateLimits');
  private readonly limiters: Map<RateLimitKind, Limiter>;
  private readonly insurance = new Map<RateLimitKind, RateLimiterMemory>();
  private readonly windowSeconds: number;
  private readonly shared: boolean;
  /** Failed-credential keys (store keys) known to be spent: refused without a round trip. */
  private readonly spentCredentials = new WindowedKeys();
  /** Failed-credential keys that failed here in their current window: their peek asks the database. */
  private readonly failingCredentials = new WindowedKeys();

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly store: RateLimitRepository,
    private readonly listener: DatabaseListener,
  ) {
    const limits = config.rateLimits;
    this.windowSeconds = limits.windowSeconds;
    this.shared = config.rateLimitStore === 'postgres';
    const points: Record<RateLimitKind, number> = {
      [RateLimitKind.SignIn]: limits.signIn,
      [RateLimitKind.FailedCredentials]: limits.failedCredentials,
      [RateLimitKind.Answers]: limits.answers,
      [RateLimitKind.Lists]: limits.lists,
      [RateLimitKind.Asks]: limits.asks,
      [RateLimitKind.Verifications]: limits.verifications,
    };
    const kinds = Object.values(RateLimitKind);
    this.limiters = new Map<RateLimitKind, Limiter>(
      kinds.map((kind, index): [RateLimitKind, Limiter] => {
        const options = { keyPrefix: kind, points: points[kind], duration: limits.windowSeconds };
        if (!this.shared) return [kind, new RateLimiterMemory(options)];
        const insurance = new RateLimiterMemory(options);
        this.insurance.set(kind, insurance);
        const limiter = new RateLimiterPostgres({
          ...options,
          storeClient: store.storeClient,
          storeType: 'pool',
          tableName: RATE_LIMIT_TABLE,
          tableCreated: true,
          // Reaching the limit blocks the key in memory until its window ends: a spent key costs no round trip.
          inMemoryBlockOnConsumed: points[kind],
          insuranceLimiter: insurance,
          // One table for every kind: one limiter's periodic deletion of rows expired over an hour ago serves all.
          clearExpiredByTimeout: index === 0,
        });
        return [kind, limiter];
      }),
    );
  }

  /** Whether the budgets are counted in PostgreSQL, shared by every replica. */
  get isShared(): boolean {
    return this.shared;
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
    const limiter = this.limiter(kind);
    let decision: RateLimitDecision;
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(key, points);
      decision = this.decision(kind, result, true);
    } catch (outcome) {
      if (!(outcome instanceof RateLimiterRes)) throw outcome;
      result = outcome;
      decision = this.decision(kind, outcome, false);
    }
    if (this.shared && kind === RateLimitKind.FailedCredentials && result.consumedPoints > 0) {
      this.failingCredentials.add(limiter.getKey(key), Date.now() + result.msBeforeNext);
      if (result.consumedPoints >= limiter.points) await this.spent(limiter.getKey(key), result.msBeforeNext);
    }
    return decision;
  }

  /** Like consume, but a spent budget throws RateLimitError (429 on every surface). */
  async spend(kind: RateLimitKind, key: string, points = 1): Promise<RateLimitDecision> {
    const decision = await this.consume(kind, key, points);
    if (!decision.allowed) throw new RateLimitError(decision);
    return decision;
  }

  /**
   * The current decision for `key` without spending anything (allowed while budget is left), or
   * undefined when nothing is known against it. Counted in PostgreSQL, only the failed-credential
   * budget can be peeked, and only from memory: refused once known spent (see the class comment).
   */
  async peek(kind: RateLimitKind, key: string): Promise<RateLimitDecision | undefined> {
    if (!this.shared) {
      const result = await this.limiter(kind).get(key);
      if (!result) return undefined;
      return this.decision(kind, result, result.consumedPoints < this.limiter(kind).points);
    }
    if (kind !== RateLimitKind.FailedCredentials) throw new Error(`the ${kind} budget is not peeked`);
    const limiter = this.limiter(kind);
    const storeKey = limiter.getKey(key);
    const msLeft = this.spentCredentials.msLeft(storeKey);
    if (msLeft > 0) return this.decision(kind, new RateLimiterRes(0, msLeft), false);
    // While the database was away the insurance counted: its spent keys are refused as well.
    const insured = await this.insurance.get(kind)?.get(key);
    if (insured && insured.consumedPoints >= limiter.points) return this.decision(kind, insured, false);
    if (this.failingCredentials.msLeft(storeKey) === 0) return undefined;
    // The store's get falls back to the insurance's should the database not answer.
    const counted = await limiter.get(key);
    if (!counted || counted.consumedPoints < limiter.points) return undefined;
    this.spentCredentials.add(storeKey, Date.now() + counted.msBeforeNext);
    return this.decision(kind, counted, false);
  }

  /**
   * Starts sharing spent failed-credential keys between replicas: reads the ones spent before this
   * process started (or while its listening connection was away), then follows the announcements.
   */
  async shareSpentCredentials(): Promise<void> {
    if (!this.shared) return;
    this.listener.listen(SPENT_CHANNEL, (payload) => {
      try {
        const spent: unknown = JSON.parse(payload);
        if (isSpentKey(spent)) this.spentCredentials.add(spent.key, spent.expire);
      } catch {
        // Only this process's own peers send on the channel; a malformed payload announces nothing.
      }
    });
    this.listener.onReconnect(() => void this.readSpentCredentials());
    await this.readSpentCredentials();
  }

  private async readSpentCredentials(): Promise<void> {
    const limiter = this.limiter(RateLimitKind.FailedCredentials);
    try {
      for (const spent of await this.store.spentKeys(`${limiter.keyPrefix}:`, limiter.points)) this.spentCredentials.add(spent.key, spent.expire);
    } catch (error) {
      this.logger.warn({ msg: 'spent failed-credential keys not read', err: String(error) });
    }
  }

  /** A failed-credential key reached its limit here: refuse it here at once, and tell the other replicas. */
  private async spent(storeKey: string, msBeforeNext: number): Promise<void> {
    if (msBeforeNext <= 0) return;
    const known = this.spentCredentials.msLeft(storeKey) > 0;
    const expire = Date.now() + msBeforeNext;
    this.spentCredentials.add(storeKey, expire);
    if (known) return;
    // Awaited (bounded like every limiter statement): the refusal that spent the budget reaches its
    // client only after the other replicas were told.
    await this.store.publishSpent({ key: storeKey, expire }).catch((error: unknown) => {
      this.logger.debug({ msg: 'spent failed-credential key not announced', err: String(error) });
    });
  }
}
