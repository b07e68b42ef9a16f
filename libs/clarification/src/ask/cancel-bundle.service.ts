import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Caller, SessionActorService } from '#authorization';
import { inTransaction } from '#persistence';
import { SessionRepository } from '#tasks';
import { ClarificationError } from '../bundle/clarification.errors.js';
import { BundleLifecycleRepository } from '../lifecycle/bundle-lifecycle.repository.js';
import { ClarificationLifecycleService } from '../lifecycle/clarification-lifecycle.service.js';
import { BundleReadService } from '../read/bundle-read.service.js';

/** Withdrawing a bundle: the asker's side's cancel. */
@Injectable()
export class CancelBundleService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: BundleReadService,
    private readonly actors: SessionActorService,
    private readonly sessions: SessionRepository,
    private readonly bundleLifecycle: BundleLifecycleRepository,
    private readonly lifecycle: ClarificationLifecycleService,
  ) {}

  /** Cancel (not a claim), on any replica: the active bundle's rows become cancelled and every waiter wakes. */
  async cancel(caller: Caller, pendingId: string): Promise<void> {
    const { rows } = await this.reader.authorizeBundle(caller, pendingId);
    const sessionId = (rows[0]).task_session_id;
    await this.actors.authorizeAct(caller, sessionId);
    const cancelled = await inTransaction(this.dataSource, async (manager) => {
      await this.sessions.lockById(sessionId, manager);
      return this.bundleLifecycle.cancelBundle(pendingId, manager);
    });
    if (cancelled.length === 0) throw ClarificationError.notActive();
    this.lifecycle.announce(cancelled, 'cancelled');
  }
}
