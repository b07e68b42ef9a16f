/** A user a bundle is assigned to, with the name they had when it was assigned (shown by every listing). */
export interface AssignedUser {
  user_id: string;
  name: string;
}

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

/** Routing as every listing reports it (null on a bundle asked without routing). */
export interface RoutingView {
  answerers: { user_ids: string[] } | null;
  assigned_to: AssignedUser[];
  required_answers: number;
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

export interface VoteView {
  user: { kind: string; user_id: string | null; name: string | null };
  surface: string;
  at: string;
  /** Present once the bundle is resolved. */
  rejected?: boolean;
  answers?: VoteRow['answers'];
}

/** What a recorded vote that did not resolve the bundle is told: how far the quorum has come. */
export interface BallotReceipt {
  /** The same voter sent the same answer again: nothing new was recorded. */
  replayed: boolean;
  votes: number;
  required_answers: number;
}
