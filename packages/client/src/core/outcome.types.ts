import type { Handoff } from './handoff.reader.js';
import type { Answer, BundleView } from './wire.types.js';

/**
 * How a bundle ended, as the agent that asked it sees it. Exactly one of these per bundle: the
 * server lets one answer win, and every read after that reports the same one.
 */
export type Outcome =
  | { status: 'answered'; pendingId: string; answers: Answer[]; respondedAt: string }
  | { status: 'rejected'; pendingId: string; reason: string; respondedAt: string }
  /** Its deadline (`expiresInSeconds`) passed, or its session ended or task was archived, unanswered. */
  | { status: 'expired'; pendingId: string }
  /** Someone cancelled it (`POST /api/v1/clarification/{id}/cancel`). */
  | { status: 'cancelled'; pendingId: string }
  /** A newer turn of the session replaced it: it can no longer be answered. */
  | { status: 'superseded'; pendingId: string };

export type OutcomeStatus = Outcome['status'];

/** The body `GET /api/v1/clarification/{id}/wait` returns once the bundle is answered or rejected. */
export interface WaitedResponse {
  pending_id: string;
  answers: Answer[];
  rejected: boolean;
  reject_reason: string;
  responded_at: string;
}

/** The outcome a final `/wait` reply reports. */
export function outcomeOfWait(pendingId: string, response: WaitedResponse): Outcome {
  if (response.rejected) return { status: 'rejected', pendingId, reason: response.reject_reason, respondedAt: response.responded_at };
  return { status: 'answered', pendingId, answers: response.answers, respondedAt: response.responded_at };
}

interface StoredResponse {
  answers?: Answer[];
  rejected?: boolean;
  reject_reason?: string;
  responded_at?: string;
}

/**
 * The outcome a bundle's read (`GET /api/v1/clarification/{id}`) reports, or `undefined` while it is
 * still pending (or its winner's answer is still being delivered: not final yet).
 */
export function outcomeOfBundle(bundle: Pick<BundleView, 'pending_id' | 'status' | 'response' | 'resolved_by'>): Outcome | undefined {
  const pendingId = bundle.pending_id;
  const response = (bundle.response ?? {}) as StoredResponse;
  const respondedAt = response.responded_at ?? bundle.resolved_by?.at ?? '';
  switch (bundle.status) {
    case 'answered':
      return { status: 'answered', pendingId, answers: response.answers ?? [], respondedAt };
    case 'rejected':
      return { status: 'rejected', pendingId, reason: response.reject_reason ?? '', respondedAt };
    case 'expired':
    case 'cancelled':
      return { status: bundle.status, pendingId };
    case 'inactive':
      // No longer active, no winner, neither expired nor cancelled: a newer turn superseded it.
      return { status: 'superseded', pendingId };
    default:
      // 'pending', or 'delivering' (a winner is being handed over: final once that settles).
      return undefined;
  }
}

/** Whether an outcome is a person's (or agent's) decision, rather than the bundle going away unanswered. */
export function isDecision(outcome: Outcome): outcome is Extract<Outcome, { status: 'answered' | 'rejected' }> {
  return outcome.status === 'answered' || outcome.status === 'rejected';
}

/** What `resume` hands over: the outcome, and the resume hand-off it came with when the server made one. */
export type ResumedOutcome = Outcome & { handoff?: Handoff };
