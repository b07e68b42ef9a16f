import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { faultPoint } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { inTransaction } from '#persistence';
import { SessionRepository } from '#tasks';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { DueRowsSweep } from './due-rows.sweep.js';
import { EscalationRepository, type FiredStep } from './escalation.repository.js';


/**
 * Runs the escalation ladders of routed bundles (rule Q4), on every replica, the way deadlines are
 * swept: every DEADLINE_SWEEP_INTERVAL_MS (and when the database comes back) each process takes due
 * steps one at a time with SKIP LOCKED, runs each in the transaction that deletes its row — so a step
 * fires exactly once, and one whose process dies mid-step (its transaction never commits) is run by
 * the next sweep anywhere. A step takes the session's lock, so it serializes with the claim: a bundle
 * answered, expired or cancelled first is not reminded or reassigned, and its ladder ends.
 */
/** A step taken: whether it fired, and which bundle and step it was. */
type RunStep = FiredStep & { pendingId: string; step: number };

@Injectable()
export class EscalationSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('EscalationSweeper');
  private readonly loop = new DueRowsSweep<RunStep>({
    failure: 'escalation sweep failed',
    logger: this.logger,
    anyDue: () => this.escalations.anyDue(),
    next: () => this.runNext(),
    handled: (step) => {
      if (step.fired) this.logger.log({ msg: 'escalation step ran', pending_id: step.pendingId, step: step.step, event: step.type });
    },
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly escalations: EscalationRepository,
    private readonly sessions: SessionRepository,
    private readonly signals: BundleSignals,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.loop.start(this.config.deadlineSweepIntervalMs, this.signals);
  }

  onApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  sweep(): Promise<void> {
    return this.loop.sweep();
  }

  private runNext(): Promise<RunStep | undefined> {
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
