import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EventBus } from '../../common/src/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/src/index.js';
import { SessionRepository, SessionState } from '../../tasks/src/index.js';
import { BundleRepository } from './bundle.repository.js';
import { requestFromRows, resumePrompt } from './bundle.mapper.js';
import { ClarificationError, ClarificationErrorCode } from './clarification.errors.js';
import type { BundleRow, ClarificationResponse } from './clarification.types.js';
import { ReplicaDeliveryService } from './replica-delivery.service.js';
import { ResumeDispatcher } from './resume.dispatcher.js';
import { DeliveryOutcome, WaiterStore } from './waiter.store.js';

export enum WinnerDelivery {
  LiveWaiter = 'live_waiter',
  Resumed = 'resumed',
  StaleDismissed = 'stale_dismissed',
}

/**
 * What only the winner of a claim does: hand the response to a live waiter, or else resume the
 * agent exactly once (answered) or dismiss the stale question (rejected).
 */
@Injectable()
export class DeliveryService {
  private readonly logger = new Logger('Delivery');

  constructor(
    private readonly bundles: BundleRepository,
    private readonly sessions: SessionRepository,
    private readonly waiters: WaiterStore,
    private readonly resume: ResumeDispatcher,
    private readonly replicas: ReplicaDeliveryService,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * `rows`: the bundle's rows as the winning claim left them (D2 order). A live waiter here or on
   * another replica gets the response; otherwise the agent is resumed (or the rejection recorded).
   */
  async deliverWinner(rows: BundleRow[], response: ClarificationResponse): Promise<WinnerDelivery> {
    const request = requestFromRows(rows);
    const pendingId = request.pending_id;
    const outcome = await this.waiters.deliver(
      pendingId,
      response,
      async () => {
        await this.bundles.finalizeDelivery(pendingId);
      },
      this.config.deliveryConfirmTimeoutMs,
    );
    let delivery: WinnerDelivery;
    if (outcome === DeliveryOutcome.Delivered || (await this.replicas.deliverElsewhere(pendingId, response))) {
      delivery = WinnerDelivery.LiveWaiter;
    } else if (response.rejected) {
      await this.bundles.finalizeDelivery(pendingId);
      delivery = WinnerDelivery.StaleDismissed;
    } else {
      await this.resumeAgent(rows, response);
      delivery = WinnerDelivery.Resumed;
    }
    await this.returnToRunning(request.session_id);
    const payload = { pending_id: pendingId, session_id: request.session_id, task_id: request.task_id, response };
    this.events.publish('session.message.updated', {
      session_id: request.session_id,
      task_id: request.task_id,
      message_ids: rows.map((row) => row.id),
    });
    this.events.publish(
      delivery === WinnerDelivery.StaleDismissed ? 'clarification.stale_dismissed' : 'clarification.primary_answered',
      { ...payload, delivery },
    );
    return delivery;
  }

  /**
   * Exactly one resume: reserve a successor turn, mark it attempted just before the hand-off (the
   * at-most-once boundary), then POST to the webhook — or, with none configured, queue the prompt
   * durably on the successor turn. Not accepted ⇒ the claim is rolled back and the caller told to retry.
   */
  private async resumeAgent(rows: BundleRow[], response: ClarificationResponse): Promise<void> {
    const request = requestFromRows(rows);
    const session = await this.sessions.findById(request.session_id);
    if (!session) throw new ClarificationError(ClarificationErrorCode.Internal, 'session of the clarification is gone');
    const turnId = randomUUID();
    const prompt = resumePrompt(request, response);
    const webhook = this.resume.webhookFor(session.resume_url);
    await this.bundles.reserveSuccessorTurn(session.id, session.task_id, turnId, request.pending_id);
    const queued = webhook
      ? undefined
      : { messageId: randomUUID(), taskId: session.task_id, content: prompt, metadata: { resume_of: request.pending_id, response } };
    await this.bundles.markDispatchAttempted(session.id, turnId, queued);
    if (webhook) {
      const accepted = await this.resume.post(webhook, {
        session_id: session.id,
        task_id: session.task_id,
        pending_id: request.pending_id,
        turn_id: turnId,
        prompt,
        response,
      });
      if (!accepted) {
        await this.bundles.abandonResume(request.pending_id, session.id, turnId);
        this.logger.warn({ msg: 'resume not accepted; claim rolled back', pending_id: request.pending_id });
        throw new ClarificationError(
          ClarificationErrorCode.DeliveryFailed,
          'the agent could not be resumed; the clarification is pending again and the answer can be retried',
        );
      }
    }
    await this.bundles.finalizeDelivery(request.pending_id);
  }

  private async returnToRunning(sessionId: string): Promise<void> {
    await this.sessions.updateStateIf(sessionId, SessionState.WaitingForInput, SessionState.Running);
  }
}
