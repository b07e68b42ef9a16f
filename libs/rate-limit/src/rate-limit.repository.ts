import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';
import { DatabaseUnavailableError } from '#common';
import { createSidePool, Database } from '#persistence';

/** The table of the shared counters (created by a migration; rate-limiter-flexible reads and writes it). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * The limiter's own connections: a handful suffice, each statement a single-row upsert; and they
 * never queue behind requests waiting for the DataSource's pool (a burst of answers must not make
 * their own budget checks wait for a connection the answers hold).
 */
const POOL_SIZE = 4;
/**
 * A budget check must never hold a request up for long: beyond this the statement is abandoned and
 * the insurance limiter (this process's memory) decides instead. Far above an upsert's round trip.
 */
const STATEMENT_TIMEOUT_MS = 1_000;
const ACQUIRE_TIMEOUT_MS = 1_000;
/** Shutdown does not wait longer than this for a frozen server to acknowledge the pool's end. */
const CLOSE_TIMEOUT_MS = 1_000;
/**
 * A count lost with the last fraction of a second of a database crash is harmless, and waiting for
 * the WAL flush would serialize every spend of one key (they take the row's lock in turn) behind an fsync.
 */
const SESSION_OPTIONS = '-c synchronous_commit=off';

/** What rate-limiter-flexible's PostgreSQL store calls: `query` on a pool-like client. */
export interface StoreClient {
  query(config: pg.QueryConfig): Promise<pg.QueryResult>;
}

/**
 * The PostgreSQL side of the shared rate limits: a small pool of its own (opened on first use, so a
 * process counting in memory never connects it), gated by the process's reachability.
 */
@Injectable()
export class RateLimitRepository implements OnApplicationShutdown {
  private readonly logger = new Logger('RateLimits');
  private pool: pg.Pool | undefined;
  private closed = false;

  constructor(@Inject(Database) private readonly database: Database) {}

  private connections(): pg.Pool {
    // Direct: its start-up settings (the bound, synchronous_commit) are session settings a transaction pooler refuses.
    this.pool ??= createSidePool(
      this.database.directUrl,
      this.database.reachability,
      {
        applicationName: 'parley-limits',
        poolSize: POOL_SIZE,
        connectTimeoutMs: this.database.poolOptions.connectTimeoutMs,
        acquireTimeoutMs: ACQUIRE_TIMEOUT_MS,
        statementTimeoutMs: STATEMENT_TIMEOUT_MS,
        sessionOptions: SESSION_OPTIONS,
      },
      (error) => this.logger.debug({ msg: 'idle rate-limit connection failed', err: String(error) }),
    );
    return this.pool;
  }

  /**
   * Runs one statement of the store — refused at once while the database is known to be unreachable,
   * and abandoned the moment it becomes so (a statement sent to a hung server would otherwise wait
   * out its bound): either way the store's insurance limiter decides.
   */
  run(config: pg.QueryConfig): Promise<pg.QueryResult> {
    const reachability = this.database.reachability;
    // After shutdown (a late periodic sweep) nothing reopens the pool.
    if (!reachability.isReachable || this.closed) return Promise.reject(new DatabaseUnavailableError());
    return new Promise((resolve, reject) => {
      const stop = reachability.onUnreachable(() => reject(new DatabaseUnavailableError()));
      this.connections()
        .query(config)
        .then(resolve, reject)
        .finally(stop);
    });
  }

  /** The client handed to rate-limiter-flexible's PostgreSQL store. */
  readonly storeClient: StoreClient = { query: (config) => this.run(config) };

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await Promise.race([pool.end().catch(() => undefined), delay(CLOSE_TIMEOUT_MS, undefined, { ref: false })]);
  }
}
