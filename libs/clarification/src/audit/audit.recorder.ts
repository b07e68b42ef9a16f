import { type BeforeApplicationShutdown, Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { AuditRepository } from './audit.repository.js';
import type { AuditEntry } from './audit.types.js';

/** Attempts are written shortly after they end, in batches of at most this many. */
const BATCH = 500;
const FLUSH_DELAY_MS = 50;
/** While the database is away, attempts wait in memory up to this many (the oldest are dropped beyond). */
const MAX_QUEUED = 10_000;
const RETRY_MS = 1_000;
const PRUNE_EVERY_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Writes resolution attempts to the audit trail off the answer's path: `record` only queues (the
 * claim's statements and commits stay what they are), a timer writes the queue in one statement per
 * batch, and the shutdown writes what is left. An attempt is lost only if the process dies within
 * the flush delay (or while the database is away) — the audit trail is a record, never an authority.
 * A reader on this process calls `flush` first, so it sees every attempt this process has seen.
 */
@Injectable()
export class AuditRecorder implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('AuditTrail');
  private queue: AuditEntry[] = [];
  private flushing: Promise<boolean> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;

  constructor(
    private readonly audit: AuditRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    void this.prune();
    this.pruner = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
    this.pruner.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.pruner);
    clearTimeout(this.timer);
    await this.flush();
  }

  record(entry: AuditEntry): void {
    this.queue.push(entry);
    if (this.queue.length > MAX_QUEUED) this.queue.splice(0, this.queue.length - MAX_QUEUED);
    this.schedule(this.queue.length >= BATCH ? 0 : FLUSH_DELAY_MS);
  }

  /** Writes every attempt queued so far (stops early, keeping them queued, while the database is away). */
  async flush(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      this.flushing ??= this.drain().finally(() => (this.flushing = undefined));
      if (!(await this.flushing)) return;
    }
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private async drain(): Promise<boolean> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, BATCH);
      try {
        await this.audit.insert(batch);
      } catch (error) {
        this.queue = [...batch, ...this.queue].slice(-MAX_QUEUED);
        this.logger.warn({ msg: 'audit trail not written; retrying', queued: this.queue.length, err: String(error) });
        this.schedule(RETRY_MS);
        return false;
      }
    }
    return true;
  }

  private async prune(): Promise<void> {
    try {
      await this.audit.prune(new Date(Date.now() - this.config.auditRetentionDays * DAY_MS));
    } catch (error) {
      this.logger.warn({ msg: 'audit trail not pruned', err: String(error) });
    }
  }
}
