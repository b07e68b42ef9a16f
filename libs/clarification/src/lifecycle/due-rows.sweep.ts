import type { Logger } from '@nestjs/common';
import type { BundleSignals } from '../wait/bundle-signal.service.js';

/** Rows one sweep handles at most (the next sweep goes on). */
const MAX_PER_SWEEP = 100;

export interface DueRowsWork<T> {
  /** What the log calls a failed sweep, e.g. 'deadline sweep failed'. */
  failure: string;
  logger: Logger;
  /** A cheap look whether anything is due, before any transaction. */
  anyDue: () => Promise<boolean>;
  /** Takes and handles one due row in its own transaction (SKIP LOCKED); undefined when none is due. */
  next: () => Promise<T | undefined>;
  handled: (outcome: T) => void;
}

/**
 * The sweep of a timer table, on every replica: every interval (and when the database comes back)
 * the process takes due rows one at a time, each with SKIP LOCKED in its own transaction, so replicas
 * share them and none is handled twice. One sweep at a time per process; a failed sweep (the
 * database is away) waits for the next tick.
 */
export class DueRowsSweep<T> {
  private sweeping: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly work: DueRowsWork<T>) {}

  start(intervalMs: number, signals: BundleSignals): void {
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
    signals.onReconnect(() => void this.sweep());
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.work.logger.warn({ msg: this.work.failure, err: String(error) }))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    if (!(await this.work.anyDue())) return;
    for (let handled = 0; handled < MAX_PER_SWEEP; handled += 1) {
      const outcome = await this.work.next();
      if (outcome === undefined) return;
      this.work.handled(outcome);
    }
  }
}
