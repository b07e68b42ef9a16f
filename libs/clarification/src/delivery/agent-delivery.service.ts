import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { ProcessLease } from '#persistence';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { settlementOf, Settlement } from '../bundle/settlement.rules.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { recordsResponse } from './delivery.mapper.js';
import { type BundleSession, type Target, WinnerDelivery } from './delivery.types.js';
import { LiveDeliveryService } from './live-delivery.service.js';
import { ResumeHandoffService } from './resume-handoff.service.js';

/** Extra time a winner gives another replica to report the outcome of a delivery handed to it. */
const REMOTE_GRACE_MS = 1_000;

/** A won claim planned for the agent's live wait: delivered here, or handed to the replica that holds the wait. */
@Injectable()
export class AgentDeliveryService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly live: LiveDeliveryService,
    private readonly resumes: ResumeHandoffService,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly bundles: BundleRepository,
    private readonly signals: BundleSignals,
    private readonly lease: ProcessLease,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** How the answer reached the agent whose wait `owner` holds; `undefined` when this claim was rolled back and another answer became final. */
  deliver(owner: string, target: Target, response: ClarificationResponse, session: BundleSession): Promise<WinnerDelivery | undefined> {
    if (owner === this.lease.id) return this.live.deliverHere(target, response);
    return this.awaitRemoteDelivery(owner, target, response, session);
  }

  /**
   * Another replica holds the agent's wait and was handed the answer: report what became of it. If it
   * did not take the hand-off within the bound, the winner takes the claim back and resumes the agent
   * itself (nothing waits on a replica that does not answer).
   */
  private async awaitRemoteDelivery(remote: string, target: Target, response: ClarificationResponse, session: BundleSession): Promise<WinnerDelivery | undefined> {
    const pendingId = target.request.pending_id;
    const change = this.signals.nextChange(pendingId, this.config.deliveryConfirmTimeoutMs + REMOTE_GRACE_MS);
    let state = await this.bundles.findBundleState(pendingId);
    if (settlementOf(state.rows, state.active) === Settlement.Delivering) {
      await change.changed;
      state = await this.bundles.findBundleState(pendingId);
    } else {
      change.cancel();
    }
    switch (settlementOf(state.rows, state.active)) {
      case Settlement.Final:
        // Final, but possibly another answer's: this claim was rolled back and another won before this read.
        return recordsResponse(state.rows, response) ? WinnerDelivery.LiveWaiter : undefined;
      case Settlement.Delivering:
        if (!(await this.ownership.takeOver(pendingId, remote, this.lease.id))) throw ClarificationError.inProgress();
        this.logger.warn({ msg: 'hand-off not taken in time; resuming the agent instead', pending_id: pendingId, replica: remote });
        return this.resumes.resumeInstead(target, response, session);
      case Settlement.Open:
        if (state.active) {
          throw new ClarificationError(
            ClarificationErrorCode.DeliveryFailed,
            'the answer could not be delivered to the waiting agent; the clarification is pending again and the answer can be retried',
          );
        }
        throw ClarificationError.notActive();
    }
  }
}
