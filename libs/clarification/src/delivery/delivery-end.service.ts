import { Injectable, Logger } from '@nestjs/common';
import { ProcessLease } from '#persistence';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { ClarificationRequest, ClarificationResponse } from '../bundle/clarification.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { LifecycleEventCounter } from '../events/lifecycle-event.counter.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { WaiterStore } from '../wait/waiter.store.js';
import { type Target, WinnerDelivery } from './delivery.types.js';

/**
 * The two ways a won claim's delivery ends, whichever path carried it: the answer is final (everyone
 * in this process who waits on the bundle is told), or it was not delivered and the claim is rolled
 * back so the bundle is pending again.
 */
@Injectable()
export class DeliveryEndService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly bundles: BundleRepository,
    private readonly waiters: WaiterStore,
    private readonly signals: BundleSignals,
    private readonly lease: ProcessLease,
    private readonly lifecycleEvents: LifecycleEventCounter,
    private readonly ownership: DeliveryOwnershipRepository,
  ) {}

  /** The answer is final: tell the waiters here, wake local losers, and count it. */
  announceFinal({ request, messageIds }: Target, response: ClarificationResponse, delivery: WinnerDelivery): void {
    const pendingId = request.pending_id;
    this.waiters.settle(pendingId, response);
    this.signals.dispatch({ pending_id: pendingId, kind: 'settled' });
    this.lifecycleEvents.settled(request, messageIds, delivery === WinnerDelivery.StaleDismissed);
  }

  /**
   * The answer was not delivered: roll the claim back and say what the bundle is now — pending again
   * (`failure`, a retryable 500) or no longer active (409); its delivery marker is gone either way.
   */
  async rollBack(
    request: ClarificationRequest,
    why: string,
    failure = new ClarificationError(ClarificationErrorCode.DeliveryFailed, `${why}; the clarification is pending again and the answer can be retried`),
  ): Promise<never> {
    const pendingId = request.pending_id;
    const result = await this.ownership.abandon(pendingId, this.lease.id, request.session_id, (manager, pendingIds) =>
      this.bundles.refreshSessionIndex(request.session_id, pendingIds, manager),
    );
    this.signals.dispatch({ pending_id: pendingId, kind: 'reopened' });
    this.logger.warn({ msg: 'claim rolled back', pending_id: pendingId, why, restored: result.active });
    if (!result.rolledBack) throw ClarificationError.inProgress();
    if (result.active) throw failure;
    throw ClarificationError.notActive();
  }
}
