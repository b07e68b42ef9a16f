import type { Caller } from '#authorization';
import type { BundleRow } from './clarification.types.js';
import { isResolutionSurface, type ResolutionSurface } from '#common';
import { CALLER_KINDS, type ResolvedBy } from '../wire/resolved-by.wire.js';
import { Settlement, settlementOf, winningRows } from './settlement.rules.js';

/**
 * Who the claim records as the winner: the caller's kind, the user behind it (users
 * only), and the surface the answer came through. The claim adds the user's name and the time.
 */
export interface WinnerIdentity {
  kind: Caller['kind'];
  user_id: string | null;
  surface: ResolutionSurface;
}

export type { ResolvedBy };

export function winnerIdentity(caller: Caller, surface: ResolutionSurface): WinnerIdentity {
  return { kind: caller.kind, user_id: caller.kind === 'user' ? caller.userId : null, surface };
}

/** Who asked or answered, as a receipt names them: the caller's kind and id (the user's; the agent's session; null for admin and synthetic). */
export function receiptIdentityOf(caller: Caller): { kind: Caller['kind']; id: string | null } {
  switch (caller.kind) {
    case 'user':
      return { kind: caller.kind, id: caller.userId };
    case 'agent':
      return { kind: caller.kind, id: caller.sessionId };
    case 'admin':
    case 'synthetic':
      return { kind: caller.kind, id: null };
  }
}

interface RecordedWinner {
  kind?: unknown;
  user_id?: unknown;
  name?: unknown;
  surface?: unknown;
  at?: unknown;
}

function isCallerKind(value: unknown): value is Caller['kind'] {
  return (CALLER_KINDS as readonly unknown[]).includes(value);
}

/** A `resolved_by` as the claim stored it on a row, or null when it is absent or not one. */
export function parseResolvedBy(value: unknown): ResolvedBy | null {
  if (value === null || typeof value !== 'object') return null;
  const recorded = value as RecordedWinner;
  if (!isCallerKind(recorded.kind) || !isResolutionSurface(recorded.surface)) return null;
  const at = typeof recorded.at === 'string' ? new Date(recorded.at) : undefined;
  if (!at || Number.isNaN(at.getTime())) return null;
  return {
    kind: recorded.kind,
    user_id: typeof recorded.user_id === 'string' ? recorded.user_id : null,
    name: typeof recorded.name === 'string' ? recorded.name : null,
    surface: recorded.surface,
    at: at.toISOString(),
  };
}

/** Who won a bundle, from the winner's rows (the first one that records it, in D2 order); null when nobody did. */
export function resolvedByOf(rows: readonly BundleRow[]): ResolvedBy | null {
  for (const row of winningRows(rows)) {
    const resolvedBy = parseResolvedBy(row.metadata.resolved_by);
    if (resolvedBy) return resolvedBy;
  }
  return null;
}

/** Who won, once the winner's answer is final (a claim still being delivered may yet be rolled back). */
export function finalResolvedBy(rows: readonly BundleRow[], active: boolean): ResolvedBy | null {
  return settlementOf(rows, active) === Settlement.Final ? resolvedByOf(rows) : null;
}
