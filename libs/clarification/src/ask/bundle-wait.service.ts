import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { AuthorizationError, type Caller, CallerRevocations } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
import { ProcessLease } from '#persistence';
import { recordedResponse } from '../bundle/bundle.mapper.js';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { deadlinePassed } from '../lifecycle/deadline.rules.js';
import { closedReason, stateOf } from '../read/bundle-state.mapper.js';
import { BundleReadService } from '../read/bundle-read.service.js';
import { BundleSignals, type PendingChange } from '../wait/bundle-signal.service.js';
import { type LongPollEndings, type LongPollListener, LongPollRevocation, ParkedLongPoll } from '../wait/long-poll.listener.js';
import { waitEnded } from '../wait/wait.errors.js';
import { type ParkedWait, WaitFailure, WaiterRole, WaiterStore } from '../wait/waiter.store.js';

/** Waiting on a bundle's answer (the long poll), and waking the waiters here as bundles' fates change anywhere. */
@Injectable()
export class BundleWaitService implements OnModuleInit, LongPollEndings {
  constructor(
    private readonly reader: BundleReadService,
    private readonly bundles: BundleRepository,
    private readonly waiters: WaiterStore,
    private readonly signals: BundleSignals,
    private readonly revocations: CallerRevocations,
    private readonly lease: ProcessLease,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Long poll: the winner's response — at once when it is already final, else once it is. A bundle no
   * longer active without a winner is a 409; the bound passing, a cancel or a drain a 504 saying which.
   * The session's agent (its agent token; anyone while auth is disabled) consumes the answer; others observe.
   * The outcome goes to `listener`; resolves with the parked wait (to withdraw it when the caller goes
   * away), or undefined when nothing was parked; rejects when the wait cannot start (not found, not active).
   */
  async wait(caller: Caller, pendingId: string, listener: LongPollListener): Promise<ParkedWait | undefined> {
    // Watch for a change before reading, so one between the read and the attach is not missed.
    const change = this.signals.nextChange(pendingId, this.config.waitTimeoutMs);
    const { rows, active } = await this.reader.authorizeBundle(caller, pendingId).catch((error: unknown) => {
      change.cancel();
      throw error;
    });
    const before = stateOf(rows, active);
    if (before.status !== 'pending' && before.status !== 'delivering') change.cancel();
    if (before.status === 'answered' || before.status === 'rejected') {
      listener.answered(recordedResponse(rows));
      return undefined;
    }
    if (before.status !== 'pending' && before.status !== 'delivering') throw deadlinePassed(rows) ?? ClarificationError.notActive();
    if (listener.gone) {
      change.cancel();
      return undefined;
    }
    const role = caller.kind === 'agent' || caller.kind === 'synthetic' ? WaiterRole.Agent : WaiterRole.Observer;
    // Returned, not awaited: once parked, nothing of this call (its rows, its caller) stays referenced.
    return this.park(caller, pendingId, role, change, listener);
  }

  /**
   * Parks a long poll: one compact waiter telling the caller's listener, no timer, signal or promise of
   * its own. Revocation bites an open wait (the answer never reaches a credential revoked meanwhile).
   */
  private park(caller: Caller, pendingId: string, role: WaiterRole, change: PendingChange, listener: LongPollListener): ParkedWait {
    const poll = new ParkedLongPoll(pendingId, listener, this);
    poll.parked = this.waiters.park(pendingId, { role, timeoutMs: this.config.waitTimeoutMs }, poll);
    poll.stopWatching = this.revocations.watch(caller, () => poll.revoke(LongPollRevocation.Credential), {
      recheck: () => void this.recheckAccess(caller, pendingId, poll),
    });
    // Attached: a change from now on reaches the waiter; one that came in between is read again.
    if (change.fired()) void this.recheck(pendingId);
    change.cancel();
    return poll.parked;
  }

  /**
   * A membership of the waiting caller was removed: the wait ends when the caller no longer sees the
   * bundle. (The database away, the check fails and the wait goes on: it could not be answered then either.)
   */
  private async recheckAccess(caller: Caller, pendingId: string, poll: ParkedLongPoll): Promise<void> {
    try {
      await this.reader.authorizeBundle(caller, pendingId);
    } catch (error) {
      if (error instanceof ClarificationError && error.code === ClarificationErrorCode.NotFound) poll.revoke(LongPollRevocation.Access);
    }
  }

  /** What a parked long poll that ended is answered with: 401 or 404 once revoked, the deadline's 409, else a 504 saying why. */
  async endedError(pendingId: string, reason: WaitFailure, revoked: LongPollRevocation | undefined): Promise<unknown> {
    if (revoked === LongPollRevocation.Credential) return AuthorizationError.unauthenticated('the credential was revoked');
    if (revoked === LongPollRevocation.Access) return ClarificationError.notFound();
    if (reason === WaitFailure.Expired) return deadlinePassed(await this.bundles.findBundle(pendingId)) ?? waitEnded(reason);
    return waitEnded(reason);
  }

  /**
   * Re-reads a bundle someone waits on here and ends their wait if its fate was decided (a final
   * answer, or no longer active) — after attaching, and after the database connection came back.
   */
  async recheck(pendingId: string): Promise<void> {
    try {
      const rows = await this.bundles.findBundle(pendingId);
      if (rows.length === 0) return;
      const state = stateOf(rows, await this.bundles.isBundleActive(pendingId));
      if (state.status === 'answered' || state.status === 'rejected') this.waiters.settle(pendingId, recordedResponse(rows));
      else if (state.status !== 'pending' && state.status !== 'delivering') this.waiters.close(pendingId, closedReason(state.status));
    } catch {
      // The database is away (or closing): the waiters keep waiting; the reconnect re-checks them.
    }
  }

  /** Wakes waiters here as bundles' fates change anywhere; re-checks them after a database outage. */
  onModuleInit(): void {
    this.signals.subscribe((signal) => {
      if (this.waiters.waiterCount(signal.pending_id) === 0) return;
      switch (signal.kind) {
        case 'settled':
          if (signal.from !== this.lease.id) void this.recheck(signal.pending_id);
          return;
        case 'expired':
          this.waiters.close(signal.pending_id, WaitFailure.Expired);
          return;
        case 'cancelled':
          this.waiters.close(signal.pending_id, WaitFailure.Cancelled);
          return;
        case 'superseded':
          this.waiters.close(signal.pending_id, WaitFailure.Superseded);
          return;
        case 'detached':
          this.waiters.close(signal.pending_id, WaitFailure.Detached, WaiterRole.Agent);
          return;
        case 'reopened':
        case 'deliver':
        case 'voted':
          return;
      }
    });
    this.signals.onReconnect(() => this.waiters.pendingIds().forEach((pendingId) => void this.recheck(pendingId)));
  }
}
