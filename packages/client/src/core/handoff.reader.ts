import type { Transport } from './transport.js';
import type { BundleView } from './wire.types.js';

/** The server's resume hand-off of an answer that no live waiter took: the successor turn it opened for the agent. */
export interface Handoff {
  /** The successor turn's id: the agent continues on it. */
  turnId: string;
  /** The key the server sends the hand-off with (`Idempotency-Key`), the same on every re-send: the turn id. */
  idempotencyKey: string;
  /** The resume prompt the server queued on that turn (as a `resume_prompt` message). */
  prompt: string;
}

interface Message {
  turn_id: string;
  type: string;
  content: string;
  metadata: Record<string, unknown>;
}

/**
 * The hand-off of `bundle`'s answer, when the server made one: with no resume webhook it queues a
 * `resume_prompt` message (metadata `resume_of` = the pending id) on the successor turn. None when
 * the answer reached a live waiter, or went to a webhook (whose receiver has the key), or the caller
 * may not read the session's messages.
 */
export async function findHandoff(transport: Transport, bundle: Pick<BundleView, 'pending_id' | 'session_id'>, signal?: AbortSignal): Promise<Handoff | undefined> {
  let cursor = '';
  try {
    do {
      const query = { limit: 200, ...(cursor ? { cursor } : {}) };
      const page = await transport.send(() => transport.api.GET('/api/v1/sessions/{id}/messages', { params: { path: { id: bundle.session_id }, query }, signal }), signal);
      const messages = page.messages as Message[];
      const prompt = messages.find((message) => message.type === 'resume_prompt' && message.metadata.resume_of === bundle.pending_id);
      if (prompt) return { turnId: prompt.turn_id, idempotencyKey: prompt.turn_id, prompt: prompt.content };
      cursor = page.next_cursor;
    } while (cursor !== '');
  } catch {
    // Not readable with this credential: the hand-off is informational, the outcome stands without it.
  }
  return undefined;
}

interface AuditPage {
  attempts: Array<{ outcome: string; rejected: boolean; reject_reason: string | null }>;
  next_cursor: string;
}

/**
 * A rejection's reason. The bundle keeps no reason (a replay reports ""); the audit trail keeps the
 * winning attempt's exactly as given. "" when the trail is not readable with this credential.
 */
export async function recoverRejectReason(transport: Transport, pendingId: string, signal?: AbortSignal): Promise<string> {
  let cursor = '';
  try {
    do {
      const query = { limit: 200, ...(cursor ? { cursor } : {}) };
      const page = (await transport.send(
        () => transport.api.GET('/api/v1/clarification/{id}/audit', { params: { path: { id: pendingId }, query }, signal }),
        signal,
      )) as unknown as AuditPage;
      const won = page.attempts.find((attempt) => attempt.outcome === 'won' && attempt.rejected);
      if (won) return won.reject_reason ?? '';
      cursor = page.next_cursor;
    } while (cursor !== '');
  } catch {
    // The trail needs a user's (or the admin's) credential; an agent token does not see it.
  }
  return '';
}
