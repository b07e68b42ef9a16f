import type { Caller } from '#authorization';
import type { BundleRow } from './clarification.types.js';
import type { ResolutionSurface } from './resolution-surface.types.js';
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

/** Who answered a resolved bundle, as every surface reports it. */
export interface ResolvedBy {
  /** `user` (a personal access token or browser session), `admin` (ADMIN_TOKEN), `agent` (a session agent token) or `synthetic` (auth disabled). */
  kind: Caller['kind'];
  user_id: string | null;
  /** The user's name when the answer won; null for the other kinds. */
  name: string | null;
  surface: ResolutionSurface;
  /** RFC 3339 UTC: when the winning claim was made. */
  at: string;
}

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

const KINDS: readonly string[] = ['synthetic', 'admin', 'user', 'agent'];
const SURFACES: readonly string[] = ['rest', 'mcp', 'mcp_app', 'graphql', 'command', 'web', 'slack', 'telegram'];

/** A `resolved_by` as the claim stored it on a row, or null when it is absent or not one. */
export function parseResolvedBy(value: unknown): ResolvedBy | null {
  if (value === null || typeof value !== 'object') return null;
  const recorded = value as RecordedWinner;
  if (typeof recorded.kind !== 'string' || !KINDS.includes(recorded.kind)) return null;
  if (typeof recorded.surface !== 'string' || !SURFACES.includes(recorded.surface)) return null;
  const at = typeof recorded.at === 'string' ? new Date(recorded.at) : undefined;
  if (!at || Number.isNaN(at.getTime())) return null;
  return {
    kind: recorded.kind as Caller['kind'],
    user_id: typeof recorded.user_id === 'string' ? recorded.user_id : null,
    name: typeof recorded.name === 'string' ? recorded.name : null,
    surface: recorded.surface as ResolutionSurface,
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
