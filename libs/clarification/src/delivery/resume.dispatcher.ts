import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '#config';
import { ParleyMetrics } from '#observability';
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

/**
 * Hands a resume prompt to the agent's orchestrator: accepted only on a 2xx within the bound. A
 * hand-off interrupted by a crash is sent again with the same `Idempotency-Key` (the successor turn
 * id), so a receiver that deduplicates on it resumes the agent once.
 */
@Injectable()
export class ResumeDispatcher {
  private readonly logger = new Logger('ResumeDispatcher');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: ParleyMetrics,
  ) {}

  /** The webhook a session's resume goes to: its own resume_url, else the server's; none ⇒ queue. */
  webhookFor(sessionResumeUrl: string): string | undefined {
    return sessionResumeUrl || this.config.resumeWebhookUrl;
  }

  async post(url: string, payload: ResumePayload): Promise<boolean> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': payload.turn_id },
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(this.config.resumeTimeoutMs),
      });
      await response.body?.cancel();
      if (!response.ok) this.logger.warn({ msg: 'resume refused', pending_id: payload.pending_id, status: response.status });
      this.metrics.resumeHandoff(response.ok ? 'accepted' : 'refused');
      return response.ok;
    } catch (error) {
      this.logger.warn({ msg: 'resume not delivered', pending_id: payload.pending_id, err: String(error) });
      this.metrics.resumeHandoff('refused');
      return false;
    }
  }
}
