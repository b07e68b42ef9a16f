import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { DATABASE_UNAVAILABLE_MESSAGE, faultPoint, isDatabaseUnavailable } from '#common';
import { ParleyMetrics } from '#observability';
import { CommitOutcomeUnknownError, DatabaseAvailability } from '#persistence';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import type { ClaimPlan } from '../claim/claim.types.js';
import { AgentDeliveryService } from './agent-delivery.service.js';
import { ClaimService } from './claim.service.js';
import { DeliveryEndService } from './delivery-end.service.js';
import { DeliveryFlightStore } from './delivery-flight.store.js';
import { targetOf } from './delivery.mapper.js';
import { type BallotResult, type BundleSession, type Target, WinnerDelivery, type WinnerResult, type WinningAttempt } from './delivery.types.js';
import { ResumeHandoffService } from './resume-handoff.service.js';

/**
 * The winner's path (spec R1, R7, R7a): claim, then carry the answer to the agent — to its live wait
 * (here, or on the replica holding it), or by resuming it exactly once through its webhook or a queued
 * prompt. The answer becomes final only once delivered or accepted; until then the claim is owned by
 * this process's lease, and a failure rolls it back so the bundle is pending again — except a resume
 * whose outcome is unknown, which stays owed (ResumeHandoffService).
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly flights: DeliveryFlightStore,
    private readonly claims: ClaimService,
    private readonly availability: DatabaseAvailability,
    private readonly agents: AgentDeliveryService,
    private readonly resumes: ResumeHandoffService,
    private readonly ends: DeliveryEndService,
    private readonly metrics: ParleyMetrics,
  ) {}

  /**
   * Claims the bundle and, when the claim is won, delivers the answer; `undefined` when it was lost. A
   * routed bundle's answer is a ballot: unless its votes decide the bundle (then the claim carries the
   * decided outcome), what the vote came to is returned instead.
   */
  async claimAndDeliver(attempt: WinningAttempt): Promise<WinnerResult | BallotResult | undefined> {
    const target = targetOf(attempt.rows);
    const pendingId = target.request.pending_id;
    const turnId = randomUUID();
    return this.flights.run(pendingId, async () => {
      const claim = await this.claims.claim(target, attempt, turnId).catch((error: unknown) => this.claimFailed(pendingId, error));
      if (claim.kind === 'lost') return undefined;
      if (claim.kind === 'voted') return { verdict: claim.verdict };
      await faultPoint('claim.committed');
      const delivery = await this.carryOut(claim.plan, target, claim.response, attempt.session);
      return delivery === undefined ? undefined : { delivery, response: claim.response };
    });
  }

  /** A claim that threw: what its caller is told (the same errors whichever statement failed). */
  private async claimFailed(pendingId: string, error: unknown): Promise<never> {
    if (error instanceof CommitOutcomeUnknownError) {
      // The claim may have won (then its delivery, if any, is this process's sweeper's to carry out) or not.
      this.logger.warn({ msg: 'claim commit outcome unknown', pending_id: pendingId, err: String(error.cause) });
      throw ClarificationError.outcomeUnknown();
    }
    if (isDatabaseUnavailable(error)) throw error;
    if (await this.availability.explains(error)) {
      this.logger.warn({ msg: 'claim failed while the database was away', pending_id: pendingId, err: String(error) });
      throw new Error(DATABASE_UNAVAILABLE_MESSAGE, { cause: error });
    }
    this.logger.error({ msg: 'claim failed', pending_id: pendingId, err: String(error) });
    throw new ClarificationError(ClarificationErrorCode.Internal, 'the clarification could not be resolved');
  }

  /** How the answer reached the agent; `undefined` when this claim was rolled back and another answer became final. */
  private async carryOut(plan: ClaimPlan, target: Target, response: ClarificationResponse, session: BundleSession): Promise<WinnerDelivery | undefined> {
    switch (plan.kind) {
      case 'final': {
        const delivery = response.rejected ? WinnerDelivery.StaleDismissed : WinnerDelivery.Resumed;
        if (!response.rejected) this.metrics.resumeHandoff('queued');
        this.ends.announceFinal(target, response, delivery);
        return delivery;
      }
      case 'deliver':
        return this.agents.deliver(plan.owner, target, response, session);
      case 'resume':
        return this.resumes.throughWebhook(target, response, plan.successor.turnId, plan.webhook, session);
    }
  }
}
