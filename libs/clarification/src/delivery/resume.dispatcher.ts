import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { ParleyMetrics } from '#observability';
import { OutboundClient } from '#outbound';
import type { ClarificationResponse } from '../bundle/clarification.types.js';

export interface ResumePayload {
  session_id: string;
  task_id: string;
  pending_id: string;
  /** The successor turn: also the hand-off's `Idempotency-Key`, the same on every re-send. */
  turn_id: string;
  prompt: string;
  response: ClarificationResponse;
  /** The resolution's receipt (also in `response.receipt`). */
  receipt: string | null;
}

/** What one resume POST came to. */
export enum ResumeOutcome {
  /** A 2xx within the bound. */
  Accepted = 'accepted',
  /** The receiver answered, but not 2xx (a redirect included): by its contract it did not take this key. */
  Declined = 'declined',
  /** The POST never left: refused by the outbound policy, the name not resolved, no connection. */
  Unreached = 'unreached',
  /** The POST may have reached the receiver, which did not answer within the bound (or the connection broke). */
  Unknown = 'unknown',
}

/**
 * Hands a resume prompt to the agent's orchestrator through the outbound policy (docs/security.md,
 * "Outbound calls"): accepted only on a 2xx within the bound. Every re-send of a hand-off carries
 * the same `Idempotency-Key` (the successor turn id), so a receiver that deduplicates on it resumes
 * the agent once.
 */
@Injectable()
export class ResumeDispatcher {
  private readonly logger = new Logger('ResumeDispatcher');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ParleyMetrics,
    private readonly outbound: OutboundClient,
  ) {}

  /** The webhook a session's resume goes to: its own resume_url, else the server's; none ⇒ queue. */
  webhookFor(sessionResumeUrl: string): string | undefined {
    return sessionResumeUrl || this.config.resumeWebhookUrl;
  }

  async post(url: string, payload: ResumePayload): Promise<ResumeOutcome> {
    const reply = await this.outbound.post(
      url,
      JSON.stringify(payload),
      { 'content-type': 'application/json', 'idempotency-key': payload.turn_id },
      { timeoutMs: this.config.resumeTimeoutMs },
    );
    const accepted = reply.kind === 'answered' && reply.status >= 200 && reply.status <= 299;
    this.metrics.resumeHandoff(accepted ? 'accepted' : 'refused');
    if (accepted) return ResumeOutcome.Accepted;
    if (reply.kind === 'answered') {
      this.logger.warn({ msg: 'resume refused', pending_id: payload.pending_id, status: reply.status });
      return ResumeOutcome.Declined;
    }
    this.logger.warn({ msg: 'resume not delivered', pending_id: payload.pending_id, outcome: reply.kind, err: reply.reason });
    return reply.kind === 'unknown' ? ResumeOutcome.Unknown : ResumeOutcome.Unreached;
  }
}
