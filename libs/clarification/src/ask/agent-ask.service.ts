import { Inject, Injectable } from '@nestjs/common';
import type { SessionAgent } from '#authorization';
import { APP_CONFIG, type AppConfig } from '#config';
import { BundleRepository } from '../bundle/bundle.repository.js';
import { ClarificationLifecycleService } from '../lifecycle/clarification-lifecycle.service.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import { ClarificationService } from './clarification.service.js';
import { waitEnded } from '../wait/wait.errors.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { deadlinePassed } from '../lifecycle/deadline.rules.js';
import { WaitError, WaitFailure } from '../wait/waiter.store.js';

export interface AgentAskOptions {
  signal: AbortSignal;
  /** Optional deadline: unanswered by then, the bundle expires and this ask fails with EXPIRED. */
  expiresInSeconds?: unknown;
  /** Optional routing (who may answer, quorum, escalation). */
  routing?: unknown;
  /** Optional action the answer authorizes ({name, arguments}). */
  action?: unknown;
  /** Called every ASK_PROGRESS_INTERVAL_MS while the agent waits (keep-alive). */
  onProgress: (tick: number, pendingId: string) => Promise<void>;
}

/** Wait endings after which the bundle is still pending and answerable. */
const STILL_PENDING: readonly WaitFailure[] = [WaitFailure.Aborted, WaitFailure.TimedOut, WaitFailure.Detached, WaitFailure.ShuttingDown];

/** The in-session agent's blocking ask: create the bundle, wait for it, detach when the wait breaks off. */
@Injectable()
export class AgentAskService {
  constructor(
    private readonly clarifications: ClarificationService,
    private readonly lifecycle: ClarificationLifecycleService,
    private readonly bundles: BundleRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async askAndWait(agent: SessionAgent, questions: unknown, context: unknown, options: AgentAskOptions): Promise<ClarificationResponse> {
    const { request } = await this.clarifications.ask({
      sessionId: agent.sessionId,
      questions,
      context,
      agentWaitsHere: true,
      expiresInSeconds: options.expiresInSeconds,
      routing: options.routing,
      action: options.action,
    });
    const waiting = this.clarifications.waitAsAgent(request.pending_id, this.config.askTimeoutMs, options.signal);
    let tick = 0;
    const progress = setInterval(() => {
      tick += 1;
      options.onProgress(tick, request.pending_id).catch(() => undefined);
    }, this.config.askProgressIntervalMs);
    try {
      return await waiting;
    } catch (error) {
      if (!(error instanceof WaitError)) throw error;
      if (error.reason === WaitFailure.Aborted || error.reason === WaitFailure.TimedOut) {
        await this.lifecycle.detachAgent(agent.sessionId);
      }
      if (error.reason === WaitFailure.Expired) {
        const expired = deadlinePassed(await this.bundles.findBundle(request.pending_id));
        if (expired) throw expired;
      }
      if (STILL_PENDING.includes(error.reason)) {
        throw new ClarificationError(
          ClarificationErrorCode.WaitEnded,
          `stopped waiting for an answer (${error.reason}); the question stays pending as ${request.pending_id}`,
        );
      }
      throw waitEnded(error.reason);
    } finally {
      clearInterval(progress);
    }
  }

}
