import type { Caller } from '#authorization';
import { assertNever, type AuditSurface, INPUT_LIMITS } from '#common';
import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { ResolutionInput } from '../bundle/resolution.types.js';
import type { ResolutionSurface } from '../bundle/resolution-surface.types.js';

/** How one resolution attempt ended. */
export enum AuditOutcome {
  /** The attempt's claim won. */
  Won = 'won',
  /** Another answer had won: the attempt was told the winner's answer (R2). */
  Lost = 'lost',
  /** The bundle was no longer active and nobody had won (superseded, expired, cancelled): 409. */
  Inactive = 'inactive',
  /** The answer did not fit the bundle (N6–N8b): 400. */
  Invalid = 'invalid',
  /** No such bundle, or not the caller's: 404. Recorded only for bundles that exist (a foreign caller's attempt). */
  NotFound = 'not_found',
  /** The attempt could not be completed (the agent could not be resumed, a winner still being delivered, an internal error). */
  Failed = 'failed',
  /** A routed bundle: the attempt's vote was recorded (or replayed) and did not resolve the bundle. */
  Voted = 'voted',
  /** A routed bundle: the caller sees it but is not among its answerers (403). */
  NotEligible = 'not_eligible',
  /** Not an attempt: an escalation step replaced the bundle's answerers. */
  Escalated = 'escalated',
}

/** A claiming attempt as its claim records it in the audit trail when it wins. */
export interface ClaimAudit {
  attemptId: string;
  rejectReason: string | null;
}

/** One attempt as the recorder queues it. */
export interface AuditEntry {
  /** One per resolution call: the row a winning claim wrote is updated with the call's final outcome. */
  attempt_id: string;
  pending_id: string;
  outcome: AuditOutcome;
  surface: ResolutionSurface;
  caller_kind: Caller['kind'];
  caller_user_id: string | null;
  /** Whether the attempt was a rejection (null when its input did not say). */
  rejected: boolean | null;
  /** The rejection's reason as the caller gave it (null when it gave none). */
  reject_reason: string | null;
  /** What went wrong, for invalid, inactive and failed attempts. */
  detail: string | null;
  at: string;
}

/** Who made a row of the trail: the attempt's caller, or `system` for the escalation timer's own steps. */
export type AuditCallerKind = Caller['kind'] | 'system';

/** One attempt as GET /api/v1/clarification/:id/audit reports it. */
export interface AuditAttemptView {
  id: string;
  pending_id: string;
  outcome: AuditOutcome;
  surface: AuditSurface;
  caller: { kind: AuditCallerKind; user_id: string | null; name: string | null };
  rejected: boolean | null;
  reject_reason: string | null;
  detail: string | null;
  at: string;
}

export interface AuditPage {
  attempts: AuditAttemptView[];
  next_cursor: string;
}

/** Longest `detail` stored: error messages can quote a caller's field names. */
const MAX_DETAIL = 500;

/** At most `limit` code points (what the caller gave beyond a valid reason's bound is not kept). */
function bounded(text: string, limit: number): string {
  const points = Array.from(text);
  return points.length <= limit ? text : `${points.slice(0, limit).join('')}…`;
}

/**
 * The outcome a failed attempt is recorded with, and why; undefined when it is not recorded: a claim
 * whose commit outcome is unknown may have written its own `won` row.
 */
export function failureOf(error: unknown): { outcome: AuditOutcome; detail: string | null } | undefined {
  if (!(error instanceof ClarificationError)) return { outcome: AuditOutcome.Failed, detail: 'internal error' };
  switch (error.code) {
    case ClarificationErrorCode.NotFound:
      return { outcome: AuditOutcome.NotFound, detail: null };
    case ClarificationErrorCode.Validation:
    case ClarificationErrorCode.AlreadyVoted:
      return { outcome: AuditOutcome.Invalid, detail: error.message };
    case ClarificationErrorCode.NotEligible:
      return { outcome: AuditOutcome.NotEligible, detail: error.message };
    case ClarificationErrorCode.NotActive:
    case ClarificationErrorCode.SessionEnded:
    case ClarificationErrorCode.TaskArchived:
    case ClarificationErrorCode.Expired:
      return { outcome: AuditOutcome.Inactive, detail: error.message };
    case ClarificationErrorCode.WaitEnded:
    case ClarificationErrorCode.DeliveryFailed:
    case ClarificationErrorCode.InProgress:
    case ClarificationErrorCode.Internal:
      return { outcome: AuditOutcome.Failed, detail: `${error.code}: ${error.message}` };
    case ClarificationErrorCode.OutcomeUnknown:
      return undefined;
    default:
      return assertNever(error.code);
  }
}

/** The reject reason as the caller gave it (bounded), or null when the attempt is no rejection or gave none. */
export function rejectReasonOf(input: ResolutionInput): string | null {
  const reason = input.rejected === true && typeof input.reject_reason === 'string' && input.reject_reason !== '' ? input.reject_reason : null;
  return reason === null ? null : bounded(reason, INPUT_LIMITS.answerText);
}

/** The audit entry of one attempt, its outcome known. */
export function auditEntry(
  attempt: { id: string; caller: Caller; pendingId: string; input: ResolutionInput; surface: ResolutionSurface },
  outcome: AuditOutcome,
  detail: string | null,
): AuditEntry {
  const { caller, input } = attempt;
  const rejected = typeof input.rejected === 'boolean' ? input.rejected : null;
  const reason = rejectReasonOf(input);
  return {
    attempt_id: attempt.id,
    pending_id: attempt.pendingId,
    outcome,
    surface: attempt.surface,
    caller_kind: caller.kind,
    caller_user_id: caller.kind === 'user' ? caller.userId : null,
    rejected,
    reject_reason: reason,
    detail: detail === null ? null : bounded(detail, MAX_DETAIL),
    at: new Date().toISOString(),
  };
}
