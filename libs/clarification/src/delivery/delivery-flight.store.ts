import { Injectable } from '@nestjs/common';

/**
 * The bundles whose delivery this process is carrying out right now. The sweeper leaves them alone,
 * and a hand-off that another replica addresses here while one is under way waits for it to end:
 * two deliveries of one bundle in one process would race each other's finalize and roll-back.
 */
@Injectable()
export class DeliveryFlightStore {
  private readonly inFlight = new Set<string>();
  /** Hand-offs addressed here while this process was busy with the same bundle: taken once it is done. */
  private readonly deferredHandoffs = new Set<string>();
  private takeHandoff: (pendingId: string) => void = () => undefined;

  isInFlight(pendingId: string): boolean {
    return this.inFlight.has(pendingId);
  }

  /** Who takes a hand-off that was deferred, once the delivery it waited behind has ended. */
  onDeferredHandoff(take: (pendingId: string) => void): void {
    this.takeHandoff = take;
  }

  deferHandoff(pendingId: string): void {
    this.deferredHandoffs.add(pendingId);
  }

  /** Runs `work` with the bundle marked in flight (from this call on, synchronously), then releases it. */
  async run<T>(pendingId: string, work: () => Promise<T>): Promise<T> {
    this.inFlight.add(pendingId);
    try {
      return await work();
    } finally {
      this.inFlight.delete(pendingId);
      if (this.deferredHandoffs.delete(pendingId)) this.takeHandoff(pendingId);
    }
  }
}
