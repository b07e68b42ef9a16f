import { type Caller, callerId } from '#authorization';
import { type Answer, type BundleRow, ClarificationStatus } from '../bundle/clarification.types.js';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { NormalizedOutcome } from '../bundle/resolution.types.js';
import type { AssignedUser, RoutingView, StoredRouting, VoteRow, VoteView } from './routing.types.js';

/** The reason a bundle is rejected with when its voters gave different answers (rule Q3). */
export const DISAGREEMENT_REASON = 'answerers disagreed';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A bundle's routing, from its first row (every row carries the same); undefined when asked without one. */
export function routingOf(rows: readonly BundleRow[]): StoredRouting | undefined {
  const routing: unknown = (rows[0]?.metadata as { routing?: unknown } | undefined)?.routing;
  if (!isRecord(routing)) return undefined;
  const answerers = Array.isArray(routing.answerers)
    ? routing.answerers.filter(isRecord).map((user) => ({ user_id: text(user.user_id), name: text(user.name) }))
    : null;
  const required = typeof routing.required_answers === 'number' ? routing.required_answers : 1;
  const escalation = Array.isArray(routing.escalation) ? (routing.escalation as StoredRouting['escalation']) : [];
  return { answerers, required_answers: required, escalation };
}

/**
 * Rule Q1: who may answer a routed bundle — anyone who sees it when it names no answerers; else only
 * the named users, and the unscoped callers (an admin token, auth disabled). A session agent never.
 */
export function mayAnswer(caller: Caller, routing: StoredRouting | undefined): boolean {
  if (routing === undefined || routing.answerers === null) return true;
  switch (caller.kind) {
    case 'synthetic':
    case 'admin':
      return true;
    case 'agent':
      return false;
    case 'user':
      return routing.answerers.some((user) => user.user_id === caller.userId);
  }
}

/** The 403 of a caller who sees the bundle but may not answer it (rule Q1). */
export function notEligible(routing: StoredRouting): ClarificationError {
  const names = (routing.answerers ?? []).map((user) => user.name || user.user_id).join(', ');
  return new ClarificationError(ClarificationErrorCode.NotEligible, `you are not among the answerers of this question (assigned to ${names})`);
}

export function routingView(routing: StoredRouting | undefined): RoutingView | null {
  if (routing === undefined) return null;
  const assigned: AssignedUser[] = routing.answerers ?? [];
  return {
    answerers: routing.answerers === null ? null : { user_ids: routing.answerers.map((user) => user.user_id) },
    assigned_to: assigned.map((user) => ({ user_id: user.user_id, name: user.name })),
    required_answers: routing.required_answers,
  };
}

/** Who a vote is counted for: one vote per person (a user), or per unscoped identity. */
export function voterOf(caller: Caller): string {
  return callerId(caller);
}

/** A vote's answer as compared (Q2: identical normalized answers): answers in D2 order, options in the question's order. */
function ballotKey(vote: { rejected: boolean; answers: readonly Answer[] }): string {
  if (vote.rejected) return 'rejected';
  return JSON.stringify(vote.answers.map((answer) => [answer.question_id, answer.selected_options, answer.custom_text]));
}

export function sameBallot(a: { rejected: boolean; answers: readonly Answer[] }, b: { rejected: boolean; answers: readonly Answer[] }): boolean {
  return ballotKey(a) === ballotKey(b);
}

export function ballotOfOutcome(outcome: NormalizedOutcome): { rejected: boolean; answers: Answer[]; reject_reason: string } {
  const rejected = outcome.terminal === ClarificationStatus.Rejected;
  return { rejected, answers: rejected ? [] : outcome.answers, reject_reason: outcome.rejectReason };
}

/**
 * Rule Q2/Q3, over the votes in the order they were recorded: the first rejection rejects (its reason
 * kept); the first vote that differs from the first one rejects with DISAGREEMENT_REASON; `required`
 * identical votes answer with their common answer; anything else is not decided yet (undefined).
 */
export function tally(
  votes: readonly { rejected: boolean; reject_reason: string; answers: readonly Answer[] }[],
  required: number,
): NormalizedOutcome | undefined {
  const first = votes[0];
  if (first === undefined) return undefined;
  for (const vote of votes) {
    if (vote.rejected) return { terminal: ClarificationStatus.Rejected, answers: [], rejectReason: vote.reject_reason };
    if (!sameBallot(vote, first)) return { terminal: ClarificationStatus.Rejected, answers: [], rejectReason: DISAGREEMENT_REASON };
  }
  return votes.length >= required ? { terminal: ClarificationStatus.Answered, answers: [...first.answers], rejectReason: '' } : undefined;
}

/** The votes as a bundle reports them: voter, surface, time — and their answers once the bundle is resolved. */
export function voteViews(votes: readonly VoteRow[], resolved: boolean): VoteView[] {
  return votes.map((vote) => ({
    user: { kind: vote.caller_kind, user_id: vote.caller_user_id, name: vote.caller_name },
    surface: vote.surface,
    at: vote.at.toISOString(),
    ...(resolved ? { rejected: vote.rejected, answers: vote.answers } : {}),
  }));
}

/** A vote being cast: who casts it, through which surface, and what it says. */
export interface Ballot {
  caller: Caller;
  voter: string;
  surface: string;
  attemptId: string;
  own: { rejected: boolean; answers: Answer[]; reject_reason: string };
}

/** What the ballot box holds, read under the session's lock. */
export interface BallotBox {
  active: boolean;
  routing: StoredRouting | undefined;
  votes: readonly VoteRow[];
}

/** What a cast ballot comes to; `record`: the vote is new and is stored. */
export type BallotVerdict =
  | { kind: 'inactive' }
  | { kind: 'not_eligible'; routing: StoredRouting }
  | { kind: 'conflict' }
  | { kind: 'recorded'; record: boolean; replayed: boolean; votes: number; required_answers: number }
  | { kind: 'decided'; record: boolean; outcome: NormalizedOutcome };

/**
 * Rule Q2 for one ballot against the box (the caller holds the session's lock, so the box cannot
 * change meanwhile): a voter's second vote is a replay when it says the same (a decided box is then
 * claimed — this finishes a resolution whose claim was rolled back) and a conflict otherwise; a new
 * vote counts only while the bundle is active and the caller is eligible; a box already decided takes
 * no further vote, it is claimed; otherwise the vote is recorded and the tally decides.
 */
export function castBallot(box: BallotBox, ballot: Ballot): BallotVerdict {
  const required = box.routing?.required_answers ?? 1;
  const mine = box.votes.find((vote) => vote.voter === ballot.voter);
  if (mine !== undefined) {
    if (!sameBallot(mine, ballot.own)) return { kind: 'conflict' };
    const decided = tally(box.votes, required);
    if (decided === undefined) return { kind: 'recorded', record: false, replayed: true, votes: box.votes.length, required_answers: required };
    return box.active ? { kind: 'decided', record: false, outcome: decided } : { kind: 'inactive' };
  }
  if (!box.active) return { kind: 'inactive' };
  if (box.routing !== undefined && !mayAnswer(ballot.caller, box.routing)) return { kind: 'not_eligible', routing: box.routing };
  const before = tally(box.votes, required);
  if (before !== undefined) return { kind: 'decided', record: false, outcome: before };
  const after = [...box.votes, ballot.own];
  const decided = tally(after, required);
  return decided === undefined
    ? { kind: 'recorded', record: true, replayed: false, votes: after.length, required_answers: required }
    : { kind: 'decided', record: true, outcome: decided };
}

/** What a listing adds for a routed bundle: whether the caller may answer it, and who is assigned. */
export interface ListedRouting {
  eligible: boolean;
  routing: RoutingView;
}

/**
 * What every listing shows of a bundle's routing: whether the caller may answer it, and who is
 * assigned — nothing for a bundle asked without routing, which is listed exactly as before.
 */
export function listedRouting(caller: Caller, rows: readonly BundleRow[]): ListedRouting | Record<string, never> {
  const routing = routingOf(rows);
  const view = routingView(routing);
  return view === null ? {} : { eligible: mayAnswer(caller, routing), routing: view };
}
