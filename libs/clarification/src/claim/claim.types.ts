import type { ClaimAudit } from '../audit/audit.types.js';
import type { Answer, BundleRowMetadata, ClarificationResponse, TerminalStatus } from '../bundle/clarification.types.js';
import type { WinnerIdentity } from '../bundle/resolved-by.rules.js';
import type { NormalizedOutcome } from '../resolve/resolution.validation.js';
import type { Ballot, BallotVerdict } from '../routing/routing.rules.js';

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
 * - `resume`: the agent is resumed through a webhook after the commit, under this process's ownership.
 */
export type ClaimPlan =
  | { kind: 'final'; event: EventRecord; successor?: Successor }
  | { kind: 'deliver'; owner: string; handoff?: ClarificationResponse }
  | { kind: 'resume'; owner: string; successor: Successor };

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
  /**
   * A routed bundle: the answer is a vote, cast under the session's lock in the claim's transaction;
   * the claim runs only when the votes decide the bundle, with the outcome they decided.
   */
  ballot?: Ballot;
  /**
   * Signs the resolution's receipt, once the session is locked and the outcome known (a ballot's
   * decided one, if any): the claim statement stores it with the resolution, so a receipt exists
   * exactly when the resolution does. `workspaceId` is the bundle task's workspace ('' when none).
   */
  seal: (decided: DecidedOutcome, workspaceId: string) => Promise<string>;
}

export interface ClaimedRow {
  id: string;
  metadata: BundleRowMetadata;
}

export interface ClaimResult {
  claimed: boolean;
  rows: ClaimedRow[];
  plan: ClaimPlan | undefined;
  /** With a ballot that did not claim: what the vote came to (recorded, a conflict, not eligible, inactive). */
  verdict?: Exclude<BallotVerdict, { kind: 'decided' }>;
}

/** The outcome a ballot's votes decided (the claim records it, whatever the deciding voter's own answer). */
export type DecidedOutcome = NormalizedOutcome | undefined;

export interface UndeliveredClaim {
  pending_id: string;
  session_id: string;
  owner: string | null;
}
