import { ClarificationError, ClarificationErrorCode } from '../bundle/clarification.errors.js';
import type { BundleRow } from '../bundle/clarification.types.js';

/** `expires_in_seconds` bounds: at least a second, at most 30 days. */
export const MIN_EXPIRES_IN_SECONDS = 1;
export const MAX_EXPIRES_IN_SECONDS = 30 * 86_400;

/** The optional deadline of an ask, validated the same way on every surface; undefined when absent. */
export function normalizeDeadline(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < MIN_EXPIRES_IN_SECONDS || value > MAX_EXPIRES_IN_SECONDS) {
    throw ClarificationError.validation(
      `expires_in_seconds must be an integer from ${MIN_EXPIRES_IN_SECONDS} to ${MAX_EXPIRES_IN_SECONDS} (30 days)`,
    );
  }
  return value;
}

/** A bundle's deadline (RFC 3339 UTC) when it was asked with `expires_in_seconds`, else null. */
export function expiresAtOf(rows: readonly BundleRow[]): string | null {
  const value = rows[0]?.metadata.expires_at;
  return typeof value === 'string' ? value : null;
}

/** Whether a bundle's rows expired because its deadline passed (not because its session ended). */
export function expiredByDeadline(rows: readonly BundleRow[]): boolean {
  return rows.some((row) => row.metadata.status === 'expired' && row.metadata.expired_reason === 'deadline');
}

/** The typed result of an agent's wait on a bundle whose deadline passed (never a silent "proceed"); undefined otherwise. */
export function deadlinePassed(rows: readonly BundleRow[]): ClarificationError | undefined {
  if (!expiredByDeadline(rows)) return undefined;
  const pendingId = rows[0]?.metadata.pending_id ?? '';
  return new ClarificationError(
    ClarificationErrorCode.Expired,
    `the question expired unanswered at its deadline (${expiresAtOf(rows) ?? 'unknown'}); pending_id ${pendingId} — do not proceed as if it were answered`,
  );
}
