import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { faultPoint } from '#common';
import { ParleyMetrics } from '#observability';
import { ProcessLease } from '#persistence';
import { resumePrompt } from '../bundle/bundle.mapper.js';
import { ClarificationError } from '../bundle/clarification.errors.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { DeliveryOwnershipRepository } from '../claim/delivery-ownership.repository.js';
import { DeliveryEndService } from './delivery-end.service.js';
import { eventFor } from './delivery.mapper.js';
import { type BundleSession, type Target, WinnerDelivery } from './delivery.types.js';
import { ResumeDispatcher, ResumeOutcome } from './resume.dispatcher.js';

/**
 * Handing the answer to an agent that no longer waits live: the successor turn is resumed through
 * the session's webhook (accepted ⇒ final, refused ⇒ rolled back) or, with no webhook, by a queued
 * resume prompt. Every re-send carries the same successor turn id as its idempotency key.
 *
 * A resume whose outcome is unknown (no answer within the bound, a connection broken once open) is
 * owed, not rolled back: the receiver may have acted on it, so no other answer may replace it. The
 * claim stays this process's and the sweeper sends the same payload again under the same key until
 * the receiver accepts it or declines it with a status (docs/guarantees.md, "Where Parley departs").
 */
@Injectable()
export class ResumeHandoffService {
  constructor(
    private readonly resume: ResumeDispatcher,
    private readonly lease: ProcessLease,
    private readonly metrics: ParleyMetrics,
    private readonly ownership: DeliveryOwnershipRepository,
    private readonly ends: DeliveryEndService,
  ) {}

  /**
   * One resume through the webhook: accepted ⇒ final; declined with a status, or never sent when no
   * earlier attempt may have reached the receiver (`owed` says one may have) ⇒ rolled back; else
   * owed. The caller is told the same failure in every case but acceptance.
   */
  async throughWebhook(
    target: Target,
    response: ClarificationResponse,
    turnId: string,
    webhook: string,
    session: BundleSession,
    owed = false,
  ): Promise<WinnerDelivery> {
    const { request } = target;
    const outcome = await this.resume.post(webhook, {
      session_id: request.session_id,
      task_id: session.task_id,
      pending_id: request.pending_id,
      turn_id: turnId,
      prompt: resumePrompt(request, response),
      response,
      receipt: response.receipt ?? null,
    });
    if (outcome !== ResumeOutcome.Accepted) {
      const mayHoldIt = owed || outcome === ResumeOutcome.Unknown;
      if (outcome === ResumeOutcome.Declined || !mayHoldIt) return this.ends.rollBack(request, 'the agent could not be resumed', ClarificationError.resumeFailed());
      throw ClarificationError.resumeFailed();
    }
    await faultPoint('resume.accepted');
    const finalized = await this.ownership.finalize(
      request.pending_id,
      this.lease.id,
      request.session_id,
      request.task_id,
      eventFor(response, WinnerDelivery.Resumed),
    );
    if (!finalized) throw ClarificationError.inProgress();
    this.ends.announceFinal(target, response, WinnerDelivery.Resumed);
    return WinnerDelivery.Resumed;
  }

  /**
   * A claim this process owns, planned as a live delivery that did not happen, becomes a resume:
   * through the webhook, or a queued prompt (a rejection is just recorded).
   */
  async resumeInstead(target: Target, response: ClarificationResponse, session: BundleSession): Promise<WinnerDelivery> {
    const { request } = target;
    const webhook = response.rejected ? undefined : this.resume.webhookFor(session.resume_url);
    const turnId = randomUUID();
    const queued = webhook
      ? undefined
      : { messageId: randomUUID(), content: resumePrompt(request, response), metadata: { resume_of: request.pending_id, response } };
    const delivery = response.rejected ? WinnerDelivery.StaleDismissed : WinnerDelivery.Resumed;
    if (response.rejected) {
      const finalized = await this.ownership.finalize(request.pending_id, this.lease.id, request.session_id, request.task_id, eventFor(response, delivery));
      if (!finalized) throw ClarificationError.inProgress();
      this.ends.announceFinal(target, response, delivery);
      return delivery;
    }
    const resumed = await this.ownership.resumeInstead(
      { pendingId: request.pending_id, owner: this.lease.id, sessionId: request.session_id, sessionTaskId: session.task_id, bundleTaskId: request.task_id },
      { turnId, ...(queued ? { queuedPrompt: queued } : {}) },
      eventFor(response, delivery),
    );
    if (!resumed) throw ClarificationError.inProgress();
    if (webhook) return this.throughWebhook(target, response, turnId, webhook, session);
    this.metrics.resumeHandoff('queued');
    this.ends.announceFinal(target, response, delivery);
    return delivery;
  }

  /**
   * A resume that was already owed — its delivery interrupted, or its last POST's outcome unknown (its
   * successor turn stored with the claim): sent again under the same turn id, or its prompt queued.
   * Short of acceptance or a declining status, the claim is left for the next sweep.
   */
  async resendOwed(target: Target, response: ClarificationResponse, turnId: string, session: BundleSession): Promise<void> {
    const { request } = target;
    const pendingId = request.pending_id;
    const webhook = this.resume.webhookFor(session.resume_url);
    if (webhook) {
      await this.throughWebhook(target, response, turnId, webhook, session, true).catch(() => undefined);
      return;
    }
    const finalized = await this.ownership.queuePromptAndFinalize(
      { pendingId, owner: this.lease.id, sessionId: request.session_id, sessionTaskId: session.task_id, bundleTaskId: request.task_id, turnId },
      { messageId: randomUUID(), content: resumePrompt(request, response), metadata: { resume_of: pendingId, response } },
      eventFor(response, WinnerDelivery.Resumed),
    );
    if (!finalized) return;
    this.metrics.resumeHandoff('queued');
    this.ends.announceFinal(target, response, WinnerDelivery.Resumed);
  }
}
