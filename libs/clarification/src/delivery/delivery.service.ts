import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DATABASE_UNAVAILABLE_MESSAGE, EventBus, faultPoint, isDatabaseUnavailable } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { ParleyMetrics } from '#observability';
import { DatabaseAvailability, ProcessLease } from '#persistence';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { recordedResponse, resumePrompt, responseFor } from '../bundle/bundle.mapper.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { type ClarificationRequest, type ClarificationResponse, ClarificationStatus } from '../bundle/clarification.types.js';
import { settlementOf, Settlement } from '../bundle/settlement.rules.js';
import { ClaimRepository } from '../claim/claim.repository.js';
import type { ClaimPlan, UndeliveredClaim } from '../claim/claim.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { BundleSignals } from '../wait/bundle-signal.service.js';
import { DeliveryOutcome, WaiterStore } from '../wait/waiter.store.js';
import { eventFor, recordsResponse, targetOf } from './delivery.mapper.js';
import { type BundleSession, type Target, WinnerDelivery, type WinnerResult, type WinningAttempt } from './delivery.types.js';
import { ResumeDispatcher } from './resume.dispatcher.js';

/** Extra time a winner gives another replica to report the outcome of a delivery handed to it. */
const REMOTE_GRACE_MS = 1_000;

/**
 * The winner's path (spec R1, R7, R7a): claim, then carry the answer to the agent — to its live wait
 * (here, or on the replica holding it), or by resuming it exactly once through its webhook or a queued
 * prompt. The answer becomes final only once delivered or accepted; until then the claim is owned by
 * this process's lease, and a failure rolls it back so the bundle is pending again.
 */
@Injectable()
export class DeliveryService implements OnModuleInit {
  private readonly logger = new Logger('Delivery');
  /** Bundles whose delivery this process is carrying out right now (the sweeper leaves them alone). */
  private readonly inFlight = new Set<string>();
  /** Hand-offs addressed here while this process was busy with the same bundle: taken once it is done. */
  private readonly deferredHandoffs = new Set<string>();

  constructor(
    private readonly claims: ClaimRepository,
    private readonly bundles: BundleRepository,
    private readonly waiters: WaiterStore,
    private readonly signals: BundleSignals,
    private readonly resume: ResumeDispatcher,
    private readonly lease: ProcessLease,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ParleyMetrics,
    private readonly availability: DatabaseAvailability,
    private readonly ownership: DeliveryOwnershipRepository,
  ) {}

  onModuleInit(): void {
    this.signals.subscribe((signal) => {
      if (signal.kind === 'deliver' && signal.owner === this.lease.id) void this.receiveHandoff(signal.pending_id);
    });
  }

  isInFlight(pendingId: string): boolean {
    return this.inFlight.has(pendingId);
  }

  /** Claims the bundle and, when the claim is won, delivers the answer; `undefined` when it was lost. */
  async claimAndDeliver(attempt: WinningAttempt): Promise<WinnerResult | undefined> {
    const target = targetOf(attempt.rows);
    const { request } = target;
    const { outcome, session } = attempt;
    const pendingId = request.pending_id;
    const rejected = outcome.terminal === ClarificationStatus.Rejected;
    const response = responseFor(pendingId, outcome.answers, rejected, outcome.rejectReason);
    const webhook = rejected ? undefined : this.resume.webhookFor(session.resume_url);
    const turnId = randomUUID();
    this.inFlight.add(pendingId);
    try {
      let plan: ClaimPlan | undefined;
      try {
        const claim = await this.claims.completeActiveBundle(
          {
            pendingId,
            sessionId: request.session_id,
            sessionTaskId: session.task_id,
            bundleTaskId: request.task_id,
            terminal: outcome.terminal,
            responses: rejected ? undefined : new Map(outcome.answers.map((answer) => [answer.question_id, answer])),
            winner: attempt.winner,
            audit: attempt.audit,
          },
          this.lease.id,
          (remoteAgent) => this.plan({ pendingId, request, response, remoteAgent, webhook, turnId }),
        );
        if (!claim.claimed) return undefined;
        plan = claim.plan;
      } catch (error) {
        if (isDatabaseUnavailable(error)) throw error;
        if (await this.availability.explains(error)) {
          this.logger.warn({ msg: 'claim failed while the database was away', pending_id: pendingId, err: String(error) });
          throw new Error(DATABASE_UNAVAILABLE_MESSAGE, { cause: error });
        }
        this.logger.error({ msg: 'claim failed', pending_id: pendingId, err: String(error) });
        throw new ClarificationError(ClarificationErrorCode.Internal, 'the clarification could not be resolved');
      }
      await faultPoint('claim.committed');
      const delivery = await this.carryOut(plan as ClaimPlan, target, response, session, webhook);
      return delivery === undefined ? undefined : { delivery, response };
    } finally {
      this.release(pendingId);
    }
  }

  private plan(input: {
    pendingId: string;
    request: ClarificationRequest;
    response: ClarificationResponse;
    remoteAgent: string | undefined;
    webhook: string | undefined;
    turnId: string;
  }): ClaimPlan {
    const { pendingId, request, response, remoteAgent, webhook, turnId } = input;
    if (this.waiters.hasAgent(pendingId)) return { kind: 'deliver', owner: this.lease.id };
    if (remoteAgent) return { kind: 'deliver', owner: remoteAgent, handoff: response };
    if (response.rejected) return { kind: 'final', event: eventFor(response, WinnerDelivery.StaleDismissed) };
    if (webhook) return { kind: 'resume', owner: this.lease.id, successor: { turnId } };
    return {
      kind: 'final',
      event: eventFor(response, WinnerDelivery.Resumed),
      successor: {
        turnId,
        queuedPrompt: {
          messageId: randomUUID(),
          content: resumePrompt(request, response),
          metadata: { resume_of: pendingId, response },
        },
      },
    };
  }

  /** How the answer reached the agent; `undefined` when this claim was rolled back and another answer became final. */
  private async carryOut(
    plan: ClaimPlan,
    target: Target,
    response: ClarificationResponse,
    session: BundleSession,
    webhook: string | undefined,
  ): Promise<WinnerDelivery | undefined> {
    switch (plan.kind) {
      case 'final': {
        const delivery = response.rejected ? WinnerDelivery.StaleDismissed : WinnerDelivery.Resumed;
        if (!response.rejected) this.metrics.resumeHandoff('queued');
        this.announceFinal(target, response, delivery);
        return delivery;
      }
      case 'deliver':
        if (plan.owner === this.lease.id) return this.deliverHere(target, response);
        return this.awaitRemoteDelivery(plan.owner, target, response, session, webhook);
      case 'resume':
        return this.resumeThroughWebhook(target, response, plan.successor.turnId, webhook as string, session);
    }
  }

  /** A live agent waits here: it gets the answer once the finalize committed (its confirmation). */
  private async deliverHere(target: Target, response: ClarificationResponse): Promise<WinnerDelivery> {
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
      this.announceFinal(target, response, WinnerDelivery.LiveWaiter);
      return WinnerDelivery.LiveWaiter;
    }
    return this.rollBack(
      request,
      outcome === DeliveryOutcome.NoWaiter ? 'the agent stopped waiting' : 'the answer could not be delivered to the waiting agent',
    );
  }

  /**
   * Another replica holds the agent's wait and was handed the answer: report what became of it. If it
   * did not take the hand-off within the bound, the winner takes the claim back and resumes the agent
   * itself (nothing waits on a replica that does not answer).
   */
  private async awaitRemoteDelivery(
    remote: string,
    target: Target,
    response: ClarificationResponse,
    session: BundleSession,
    webhook: string | undefined,
  ): Promise<WinnerDelivery | undefined> {
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
        return this.resumeInstead(target, response, session, webhook);
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

  /** A claim this process owns becomes a resume: through the webhook, or a queued prompt. */
  private async resumeInstead(target: Target, response: ClarificationResponse, session: BundleSession, webhook: string | undefined): Promise<WinnerDelivery> {
    const { request } = target;
    const turnId = randomUUID();
    const queued = webhook
      ? undefined
      : { messageId: randomUUID(), content: resumePrompt(request, response), metadata: { resume_of: request.pending_id, response } };
    const delivery = response.rejected ? WinnerDelivery.StaleDismissed : WinnerDelivery.Resumed;
    if (response.rejected) {
      const finalized = await this.ownership.finalize(request.pending_id, this.lease.id, request.session_id, request.task_id, eventFor(response, delivery));
      if (!finalized) throw ClarificationError.inProgress();
      this.announceFinal(target, response, delivery);
      return delivery;
    }
    const resumed = await this.ownership.resumeInstead(
      { pendingId: request.pending_id, owner: this.lease.id, sessionId: request.session_id, sessionTaskId: session.task_id, bundleTaskId: request.task_id },
      { turnId, ...(queued ? { queuedPrompt: queued } : {}) },
      eventFor(response, delivery),
    );
    if (!resumed) throw ClarificationError.inProgress();
    if (webhook) return this.resumeThroughWebhook(target, response, turnId, webhook, session);
    this.metrics.resumeHandoff('queued');
    this.announceFinal(target, response, delivery);
    return delivery;
  }

  /** Exactly one resume through the webhook: accepted ⇒ final; refused or timed out ⇒ rolled back. */
  private async resumeThroughWebhook(
    target: Target,
    response: ClarificationResponse,
    turnId: string,
    webhook: string,
    session: BundleSession,
  ): Promise<WinnerDelivery> {
    const { request } = target;
    const accepted = await this.resume.post(webhook, {
      session_id: request.session_id,
      task_id: session.task_id,
      pending_id: request.pending_id,
      turn_id: turnId,
      prompt: resumePrompt(request, response),
      response,
    });
    if (!accepted) return this.rollBack(request, 'the agent could not be resumed');
    await faultPoint('resume.accepted');
    const finalized = await this.ownership.finalize(
      request.pending_id,
      this.lease.id,
      request.session_id,
      request.task_id,
      eventFor(response, WinnerDelivery.Resumed),
    );
    if (!finalized) throw ClarificationError.inProgress();
    this.announceFinal(target, response, WinnerDelivery.Resumed);
    return WinnerDelivery.Resumed;
  }

  /**
   * The answer was not delivered: roll the claim back and say what the bundle is now — pending again
   * (a retryable 500) or no longer active (409); its delivery marker is gone either way.
   */
  private async rollBack(request: ClarificationRequest, why: string): Promise<never> {
    const pendingId = request.pending_id;
    const result = await this.ownership.abandon(pendingId, this.lease.id, request.session_id, (manager, pendingIds) =>
      this.bundles.refreshSessionIndex(request.session_id, pendingIds, manager),
    );
    this.signals.dispatch({ pending_id: pendingId, kind: 'reopened' });
    this.logger.warn({ msg: 'claim rolled back', pending_id: pendingId, why, restored: result.active });
    if (!result.rolledBack) throw ClarificationError.inProgress();
    if (result.active) {
      throw new ClarificationError(
        ClarificationErrorCode.DeliveryFailed,
        `${why}; the clarification is pending again and the answer can be retried`,
      );
    }
    throw ClarificationError.notActive();
  }

  /** The answer is final: tell the waiters here, wake local losers, and in-process subscribers. */
  private announceFinal({ request, messageIds }: Target, response: ClarificationResponse, delivery: WinnerDelivery): void {
    const pendingId = request.pending_id;
    this.waiters.settle(pendingId, response);
    this.signals.dispatch({ pending_id: pendingId, kind: 'settled' });
    const payload = { pending_id: pendingId, session_id: request.session_id, task_id: request.task_id, response };
    this.events.publish('session.message.updated', {
      session_id: request.session_id,
      task_id: request.task_id,
      message_ids: messageIds,
    });
    this.events.publish(
      delivery === WinnerDelivery.StaleDismissed ? 'clarification.stale_dismissed' : 'clarification.primary_answered',
      { ...payload, delivery },
    );
  }

  /** A winner on another replica handed this process the answer for the agent waiting here. */
  private async receiveHandoff(pendingId: string): Promise<void> {
    if (this.inFlight.has(pendingId)) {
      this.deferredHandoffs.add(pendingId);
      return;
    }
    this.inFlight.add(pendingId);
    try {
      const response = await this.ownership.handoff(pendingId, this.lease.id);
      if (!response) return;
      const rows = await this.bundles.findBundle(pendingId);
      if (rows.length > 0) await this.deliverHere(targetOf(rows), response);
    } catch (error) {
      this.logger.warn({ msg: 'handed-off delivery not completed', pending_id: pendingId, err: String(error) });
    } finally {
      this.release(pendingId);
    }
  }

  /**
   * A claim whose delivery nobody carries out any more (its owner's lease expired, or this process
   * lost track of it): a resume that was already owed is sent again under the same idempotency key
   * (or its prompt queued); a live delivery that never completed is rolled back.
   */
  async recover(claim: UndeliveredClaim): Promise<void> {
    const pendingId = claim.pending_id;
    if (this.inFlight.has(pendingId)) return;
    // A hand-off addressed here and not taken yet (its signal missed, or deferred): deliver it, never roll it back.
    if (claim.owner === this.lease.id && (await this.ownership.handoff(pendingId, this.lease.id))) return this.receiveHandoff(pendingId);
    if (claim.owner !== this.lease.id && !(await this.ownership.takeOver(pendingId, claim.owner, this.lease.id))) return;
    this.inFlight.add(pendingId);
    try {
      const rows = await this.bundles.findBundle(pendingId);
      if (rows.length === 0) return;
      const target = targetOf(rows);
      const { request } = target;
      const turnId = await this.ownership.successorOf(pendingId);
      const response = recordedResponse(rows);
      this.logger.warn({ msg: 'recovering an undelivered claim', pending_id: pendingId, owner: claim.owner, resume: turnId !== undefined });
      if (!turnId || response.rejected) {
        await this.rollBack(request, 'the delivery was interrupted').catch(() => undefined);
        return;
      }
      const session = { task_id: rows[0]?.session_task_id ?? request.task_id, resume_url: await this.ownership.resumeUrlOf(request.session_id) };
      const webhook = this.resume.webhookFor(session.resume_url);
      if (webhook) {
        await this.resumeThroughWebhook(target, response, turnId, webhook, session).catch(() => undefined);
        return;
      }
      const finalized = await this.ownership.queuePromptAndFinalize(
        { pendingId, owner: this.lease.id, sessionId: request.session_id, sessionTaskId: session.task_id, bundleTaskId: request.task_id, turnId },
        { messageId: randomUUID(), content: resumePrompt(request, response), metadata: { resume_of: pendingId, response } },
        eventFor(response, WinnerDelivery.Resumed),
      );
      if (!finalized) return;
      this.metrics.resumeHandoff('queued');
      this.announceFinal(target, response, WinnerDelivery.Resumed);
    } finally {
      this.release(pendingId);
    }
  }

  private release(pendingId: string): void {
    this.inFlight.delete(pendingId);
    if (this.deferredHandoffs.delete(pendingId)) void this.receiveHandoff(pendingId);
  }
}
