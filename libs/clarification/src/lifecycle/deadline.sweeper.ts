import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '#config';
import { inTransaction } from '#persistence';
import { SessionRepository } from '#tasks';
import type { TouchedBundle } from '../bundle/bundle.types.js';
import { BundleLifecycleRepository } from './bundle-lifecycle.repository.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { ClarificationLifecycleService } from './clarification-lifecycle.service.js';
import { DeadlineRepository } from './deadline.repository.js';
import { DueRowsSweep } from './due-rows.sweep.js';

/** How soon a deadline is looked at again while a claim of its session is being delivered. */
const RECHECK_MS = 5_000;

/**
 * Expires bundles whose deadline (`expires_in_seconds`) passed, on every replica: each process looks
 * every DEADLINE_SWEEP_INTERVAL_MS (and when the database comes back) and takes due deadlines one at
 * a time with SKIP LOCKED, so replicas share them and none is handled twice. Expiring takes the
 * session's lock, like a session ending, so it serializes with the claim: the answer that committed
 * first wins and the other side sees it (a late answer gets 409; an expired agent wait ends).
 */
@Injectable()
export class DeadlineSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('DeadlineSweeper');
  private readonly loop = new DueRowsSweep<TouchedBundle[]>({
    failure: 'deadline sweep failed',
    logger: this.logger,
    anyDue: () => this.deadlines.anyDue(),
    next: () => this.expireNext(),
    handled: (expired) => {
      if (expired.length === 0) return;
      this.logger.log({ msg: 'deadline passed; bundle expired', pending_id: expired[0]?.pending_id });
      this.lifecycle.announce(expired, 'expired');
    },
  });

  constructor(
    private readonly dataSource: DataSource,
    private readonly deadlines: DeadlineRepository,
    private readonly bundleLifecycle: BundleLifecycleRepository,
    private readonly sessions: SessionRepository,
    private readonly lifecycle: ClarificationLifecycleService,
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

  /** Handles one due deadline: expire its bundle if still active; undefined when none is due. */
  private expireNext(): Promise<TouchedBundle[] | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      const due = await this.deadlines.claimDue(manager);
      if (!due) return undefined;
      await this.sessions.lockById(due.session_id, manager);
      const expired = await this.bundleLifecycle.expireBundle(due.pending_id, manager);
      if (expired.length > 0) await this.deadlines.resumeSession(due.session_id, manager);
      if (expired.length === 0 && (await this.deadlines.sessionHasDelivery(due.session_id, manager))) {
        await this.deadlines.postpone(due.pending_id, RECHECK_MS, manager);
      } else {
        await this.deadlines.drop(due.pending_id, manager);
      }
      return expired;
    });
  }
}
