import type { ClaimAudit } from '../audit/audit.types.js';
import type { Answer, BundleRowMetadata, ClarificationResponse, TerminalStatus } from '../bundle/clarification.types.js';
import type { WinnerIdentity } from '../bundle/resolved-by.rules.js';
import type { BallotVerdict } from '../routing/routing.rules.js';

/** A question event written with the change it reports. */
export interface EventRecord {
  type: 'ANSWERED' | 'REJECTED';
  payload: Record<string, unknown>;
}

/** The successor turn a resume creates (marked attempted: the hand-off is owed from the claim's commit). */
export interface Successor {
  turnId: string;
  /** With no webhook, the resume prompt queued on the successor turn (the hand-off, durable at once). */
  queuedPrompt?: { messageId: string; content: string; metadata: Record<string, unknown> };
}

/**
 * What the winning claim commits with, decided once the session is locked:
 * - `final`: nothing left to deliver (the prompt is queued, or a rejection nobody waits for): the
 *   answer is final in the claim's own transaction, with its event;
 * - `deliver`: an agent waits live — here (owner = this process) or on the process `owner` (the
 *   response is handed over in `clarification_handoffs`);
 * - `resume`: the agent is resumed through the webhook `webhook` after the commit, under this process's
 *   ownership (the claim statement does not write the URL: it travels with the plan because a resume
 *   is planned only when a webhook is set, so carrying it out needs no check or cast).
 */
export type ClaimPlan =
  | { kind: 'final'; event: EventRecord; successor?: Successor }
  | { kind: 'deliver'; owner: string; handoff?: ClarificationResponse }
  | { kind: 'resume'; owner: string; successor: Successor; webhook: string };

/** What the session's lock read with it: the other live process holding the agent's wait, and the workspace the receipt names. */
export interface ClaimLock {
  remoteAgent: string | undefined;
  /** The bundle task's workspace ('' when none). */
  workspaceId: string;
}

/** What the claim statement writes: the outcome, and who won it through which surface. */
export interface ClaimRequest {
  pendingId: string;
  sessionId: string;
  /** The session row's task (turns and messages carry it). */
  sessionTaskId: string;
  /** The bundle's task per M5 (events carry it). */
  bundleTaskId: string;
  terminal: TerminalStatus;
  responses: ReadonlyMap<string, Answer> | undefined;
  /** Who is claiming and through which surface: recorded on the rows as `resolved_by` when the claim wins. */
  winner: WinnerIdentity;
  /** The attempt, recorded in the audit trail as won by the claim's own statement. */
  audit: ClaimAudit;
}

export interface ClaimedRow {
  id: string;
  metadata: BundleRowMetadata;
}

/**
 * What a claim's transaction came to:
 * - `won`: the claim statement moved the rows, with `plan`; `response` is what the agent is given
 *   (the outcome a ballot's votes decided, if any, with its receipt);
 * - `lost`: another claim won first (or the bundle is not active): nothing was written;
 * - `voted`: a routed bundle's ballot that did not decide it — what the vote came to (recorded, a
 *   conflict, not eligible, inactive); a recorded vote committed, nothing else was written.
 */
export type ClaimResult =
  | { kind: 'won'; plan: ClaimPlan; response: ClarificationResponse }
  | { kind: 'lost' }
  | { kind: 'voted'; verdict: Exclude<BallotVerdict, { kind: 'decided' }> };

export interface UndeliveredClaim {
  pending_id: string;
  session_id: string;
  owner: string | null;
}
