import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ProcessLease } from '#persistence';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { DeliveryRecoveryService } from './delivery-recovery.service.js';

/**
 * Claims whose delivery nobody carries out any more — their owner's lease expired (the process died),
 * or this process lost track of one (its rollback failed while the database was away) — are recovered
 * at start-up, at every lease heartbeat and when the database comes back. A claim another live
 * process is delivering is never touched.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger('DeliverySweeper');
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly flights: DeliveryFlightStore,
    private readonly recovery: DeliveryRecoveryService,
    private readonly lease: ProcessLease,
    private readonly signals: BundleSignals,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.sweep();
    this.lease.onHeartbeat(() => void this.sweep());
    this.signals.onReconnect(() => void this.sweep());
  }

  /** One sweep at a time; a sweep that fails (the database is away) waits for the next trigger. */
  sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.logger.warn({ msg: 'sweep failed', err: String(error) }))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    for (const claim of await this.ownership.undelivered(this.lease.id)) {
      if (this.flights.isInFlight(claim.pending_id)) continue;
      await this.recovery.recover(claim).catch((error: unknown) =>
        this.logger.warn({ msg: 'undelivered claim not recovered', pending_id: claim.pending_id, err: String(error) }),
      );
    }
  }
}
