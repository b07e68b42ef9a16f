import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ProcessLease } from '#persistence';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { targetOf } from './delivery.mapper.js';
import { LiveDeliveryService } from './live-delivery.service.js';

/**
 * The receiving end of a cross-replica delivery: a winner on another replica found the agent's live
 * wait held here, stored the answer as a hand-off addressed to this process and signalled it. This
 * process takes the hand-off and delivers it to the waiting agent.
 */
@Injectable()
export class ReplicaHandoffReceiver implements OnModuleInit {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly bundles: BundleRepository,
    private readonly signals: BundleSignals,
    private readonly lease: ProcessLease,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly flights: DeliveryFlightStore,
    private readonly live: LiveDeliveryService,
  ) {}

  onModuleInit(): void {
    this.signals.subscribe((signal) => {
      if (signal.kind === 'deliver' && signal.owner === this.lease.id) void this.receive(signal.pending_id);
    });
    this.flights.onDeferredHandoff((pendingId) => void this.receive(pendingId));
  }

  /** Takes the hand-off addressed here and delivers it; deferred while this process delivers the bundle already. */
  async receive(pendingId: string): Promise<void> {
    if (this.flights.isInFlight(pendingId)) {
      this.flights.deferHandoff(pendingId);
      return;
    }
    await this.flights.run(pendingId, async () => {
      try {
        const response = await this.ownership.handoff(pendingId, this.lease.id);
        if (!response) return;
        const rows = await this.bundles.findBundle(pendingId);
        if (rows.length > 0) await this.live.deliverHere(targetOf(rows), response);
      } catch (error) {
        this.logger.warn({ msg: 'handed-off delivery not completed', pending_id: pendingId, err: String(error) });
      }
    });
  }
}
