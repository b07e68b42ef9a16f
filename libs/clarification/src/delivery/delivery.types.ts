import type { ReceiptIdentity } from '#receipts';
import type { ClaimAudit } from '../audit/audit.types.js';
import type { BundleRow, ClarificationRequest, ClarificationResponse } from '../bundle/clarification.types.js';
import type { WinnerIdentity } from '../bundle/resolved-by.rules.js';
import type { NormalizedOutcome } from '../bundle/resolution.types.js';
import type { Ballot, BallotVerdict } from '../routing/routing.rules.js';

export enum WinnerDelivery {
  LiveWaiter = 'live_waiter',
  Resumed = 'resumed',
  StaleDismissed = 'stale_dismissed',
}

/** The session a bundle belongs to, as the authorizing read saw it. */
export interface BundleSession {
  task_id: string;
  resume_url: string;
}

export interface WinningAttempt {
  rows: BundleRow[];
  session: BundleSession;
  outcome: NormalizedOutcome;
  /** Recorded with the claim when it wins. */
  winner: WinnerIdentity;
  /** Who answered, as the receipt names them. */
  answeredBy: ReceiptIdentity;
  audit: ClaimAudit;
  /** A routed bundle's answer is a vote, cast under the session's lock in the claim's transaction (ClaimService.claim). */
  ballot?: Ballot;
}

/** A claimed bundle as delivery needs it: its wire request and the ids of its rows. */
export interface Target {
  request: ClarificationRequest;
  messageIds: string[];
}

/** How the winner's answer reached the agent, and the response it carried. */
export interface WinnerResult {
  delivery: WinnerDelivery;
  response: ClarificationResponse;
}

/** A ballot that did not claim: what the vote came to. */
export interface BallotResult {
  verdict: Exclude<BallotVerdict, { kind: 'decided' }>;
}
