import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { ProcessLease } from '#persistence';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { DeliveryRecoveryService } from './delivery-recovery.service.js';

/**
 * Claims whose delivery nobody carries out any more — their owner's lease expired (the process died),
 * this process lost track of one (its rollback failed while the database was away), or its resume is
 * owed after an unknown outcome — are recovered at start-up, at every lease heartbeat and when the
 * database comes back. A claim another live process is delivering is never touched.
 */
@Injectable()
export class DeliverySweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger('DeliverySweeper');
  private sweeping: Promise<void> | undefined;
  /** This process's own claims being recovered beside the sweeps (one at a time per bundle). */
  private readonly ownRecoveries = new Map<string, Promise<void>>();

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

  /**
   * One sweep at a time; a sweep that fails (the database is away) waits for the next trigger. Settles
   * once the sweep has, and every recovery of this process's own claims under way.
   */
  async sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.logger.warn({ msg: 'sweep failed', err: String(error) }))
      .finally(() => (this.sweeping = undefined));
    await this.sweeping;
    await Promise.all(this.ownRecoveries.values());
  }

  private async sweepOnce(): Promise<void> {
    for (const claim of await this.ownership.undelivered(this.lease.id)) {
      const pendingId = claim.pending_id;
      if (this.flights.isInFlight(pendingId) || this.ownRecoveries.has(pendingId)) continue;
      const recovery = this.recovery.recover(claim).catch((error: unknown) =>
        this.logger.warn({ msg: 'undelivered claim not recovered', pending_id: pendingId, err: String(error) }),
      );
      if (claim.owner !== this.lease.id) {
        await recovery;
        continue;
      }
      // An owed resume may wait out RESUME_TIMEOUT_MS on a silent receiver: it must not hold up the
      // next sweep, which takes over the claims of processes that died.
      this.ownRecoveries.set(pendingId, recovery.finally(() => this.ownRecoveries.delete(pendingId)));
    }
  }
}
