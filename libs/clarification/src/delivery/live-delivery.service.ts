import { Injectable } from '@nestjs/common';
import { faultPoint } from '#common';
import { traced } from '#observability';
import { ProcessLease } from '#persistence';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { DeliveryOutcome, WaiterStore } from '../wait/waiter.store.js';
import { DeliveryEndService } from './delivery-end.service.js';
import { eventFor } from './delivery.mapper.js';
import { type Target, WinnerDelivery } from './delivery.types.js';

/**
 * Delivery to an agent whose live wait is held by this process — the winner's own, or one another
 * replica's winner handed over. The agent is given the answer only after the finalize committed, so
 * an answer an agent saw is never rolled back.
 */
@Injectable()
export class LiveDeliveryService {
  constructor(
    private readonly waiters: WaiterStore,
    private readonly lease: ProcessLease,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly ends: DeliveryEndService,
  ) {}

  /** The answer handed to the agent's live wait, in a span of the answer's trace. */
  deliverHere(target: Target, response: ClarificationResponse): Promise<WinnerDelivery> {
    return traced('parley.deliver', { 'parley.pending_id': target.request.pending_id }, () => this.offer(target, response));
  }

  private async offer(target: Target, response: ClarificationResponse): Promise<WinnerDelivery> {
    const { request } = target;
    const pendingId = request.pending_id;
    await faultPoint('deliver.offered');
    const outcome = await this.waiters.offer(pendingId, response, async () => {
      const finalized = await this.ownership.finalize(
        pendingId,
        this.lease.id,
        request.session_id,
        request.task_id,
        eventFor(response, WinnerDelivery.LiveWaiter),
      );
      if (!finalized) throw new Error('the claim is no longer owned by this process');
    });
    if (outcome === DeliveryOutcome.Delivered) {
      this.ends.announceFinal(target, response, WinnerDelivery.LiveWaiter);
      return WinnerDelivery.LiveWaiter;
    }
    return this.ends.rollBack(
      request,
      outcome === DeliveryOutcome.NoWaiter ? 'the agent stopped waiting' : 'the answer could not be delivered to the waiting agent',
    );
  }
}
