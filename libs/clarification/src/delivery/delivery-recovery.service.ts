import { Injectable, Logger } from '@nestjs/common';
import { ProcessLease } from '#persistence';
import { recordedResponse } from '../bundle/bundle.mapper.js';
import { BundleRepository } from '../bundle/bundle.repository.js';
import type { UndeliveredClaim } from '../claim/claim.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { DeliveryEndService } from './delivery-end.service.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { targetOf } from './delivery.mapper.js';
import { ReplicaHandoffReceiver } from './replica-handoff.receiver.js';
import { ResumeHandoffService } from './resume-handoff.service.js';

/**
 * A claim whose delivery nobody carries out any more (its owner's lease expired, or this process
 * lost track of it): a resume that was already owed is sent again under the same idempotency key
 * (or its prompt queued); a live delivery that never completed is rolled back.
 */
@Injectable()
export class DeliveryRecoveryService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly bundles: BundleRepository,
    private readonly lease: ProcessLease,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly flights: DeliveryFlightStore,
    private readonly handoffs: ReplicaHandoffReceiver,
    private readonly resumes: ResumeHandoffService,
    private readonly ends: DeliveryEndService,
  ) {}

  async recover(claim: UndeliveredClaim): Promise<void> {
    const pendingId = claim.pending_id;
    if (this.flights.isInFlight(pendingId)) return;
    // A hand-off addressed here and not taken yet (its signal missed, or deferred): deliver it, never roll it back.
    if (claim.owner === this.lease.id && (await this.ownership.handoff(pendingId, this.lease.id))) return this.handoffs.receive(pendingId);
    if (claim.owner !== this.lease.id && !(await this.ownership.takeOver(pendingId, claim.owner, this.lease.id))) return;
    await this.flights.run(pendingId, async () => {
      const rows = await this.bundles.findBundle(pendingId);
      if (rows.length === 0) return;
      const target = targetOf(rows);
      const { request } = target;
      const turnId = await this.ownership.successorOf(pendingId);
      const response = recordedResponse(rows);
      this.logger.warn({ msg: 'recovering an undelivered claim', pending_id: pendingId, owner: claim.owner, resume: turnId !== undefined });
      if (!turnId || response.rejected) {
        await this.ends.rollBack(request, 'the delivery was interrupted').catch(() => undefined);
        return;
      }
      const session = { task_id: rows[0]?.session_task_id ?? request.task_id, resume_url: await this.ownership.resumeUrlOf(request.session_id) };
      await this.resumes.resendOwed(target, response, turnId, session);
    });
  }
}
