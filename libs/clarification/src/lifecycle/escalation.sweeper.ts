import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { faultPoint } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { inTransaction } from '#persistence';
import { SessionRepository } from '#tasks';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { EscalationRepository, type FiredStep } from './escalation.repository.js';

/** Steps one sweep runs at most (the next sweep goes on). */
const MAX_PER_SWEEP = 100;

/**
 * Runs the escalation ladders of routed bundles (rule Q4), on every replica, the way deadlines are
 * swept: every DEADLINE_SWEEP_INTERVAL_MS (and when the database comes back) each process takes due
 * steps one at a time with SKIP LOCKED, runs each in the transaction that deletes its row — so a step
 * fires exactly once, and one whose process dies mid-step (its transaction never commits) is run by
 * the next sweep anywhere. A step takes the session's lock, so it serializes with the claim: a bundle
 * answered, expired or cancelled first is not reminded or reassigned, and its ladder ends.
 */
@Injectable()
export class EscalationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EscalationSweeper');
  private sweeping: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly escalations: EscalationRepository,
    private readonly sessions: SessionRepository,
    private readonly signals: BundleSignals,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.deadlineSweepIntervalMs);
    this.timer.unref();
    this.signals.onReconnect(() => void this.sweep());
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep at a time; a failed sweep (the database is away) waits for the next tick. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.logger.warn({ msg: 'escalation sweep failed', err: String(error) }))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    if (!(await this.escalations.anyDue())) return;
    for (let handled = 0; handled < MAX_PER_SWEEP; handled += 1) {
      const step = await this.runNext();
      if (step === undefined) return;
      if (step.fired) this.logger.log({ msg: 'escalation step ran', pending_id: step.pendingId, step: step.step, event: step.type });
    }
  }

  private runNext(): Promise<(FiredStep & { pendingId: string; step: number }) | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      const due = await this.escalations.claimDue(manager);
      if (!due) return undefined;
      await this.sessions.lockById(due.session_id, manager);
      const fired = await this.escalations.runStep(due, manager);
      await faultPoint('escalation.step');
      return { ...fired, pendingId: due.pending_id, step: due.step };
    });
  }
}
