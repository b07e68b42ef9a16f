import type { AssignedUser, RoutingView } from '../wire/pending-bundle.wire.js';
import type { VoteReceiptWire } from '../wire/resolution.wire.js';
import type { VoteView } from '../wire/bundle-read.wire.js';

/** A user a bundle is assigned to, with the name they had when it was assigned (shown by every listing); routing as every listing reports it. */
export type { AssignedUser, RoutingView };

/** One rung of the escalation ladder, run once, `after_seconds` after the ask. */
export interface EscalationStep {
  after_seconds: number;
  /** Emit a REMINDED event naming the eligible users. */
  remind?: true;
  /** Replace the eligible set (an ESCALATED event, an audit row). */
  reassign_to?: { user_ids: string[] };
}

/**
 * A bundle's routing as stored on each of its rows (`metadata.routing`): who may answer (`answerers`,
 * null: whoever sees it), how many identical votes resolve it, and the escalation ladder.
 */
export interface StoredRouting {
  answerers: AssignedUser[] | null;
  required_answers: number;
  escalation: EscalationStep[];
}

/** A validated routing object of an ask, before its user ids were looked up. */
export interface RoutingInput {
  answerers: string[] | null;
  required_answers: number;
  escalation: EscalationStep[];
}


/** One recorded vote (its answer is shown only once the bundle is resolved). */
export interface VoteRow {
  voter: string;
  seq: string;
  caller_kind: string;
  caller_user_id: string | null;
  caller_name: string | null;
  surface: string;
  rejected: boolean;
  reject_reason: string;
  answers: { question_id: string; selected_options: string[]; custom_text: string }[];
  at: Date;
}

/** One vote as a routed bundle's read reports it (its answer present once the bundle is resolved). */
export type { VoteView };

/** What a recorded vote that did not resolve the bundle is told: how far the quorum has come. */
/** How far a routed bundle's quorum is after a vote that did not resolve it (`replayed`: nothing new was recorded). */
export type BallotReceipt = VoteReceiptWire;
