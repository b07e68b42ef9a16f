import type { Db } from './bundles.js';

/**
 * Where a bundle stands, read straight from PostgreSQL: its rows, the resume it owes or made, its
 * index row and its events — what the fault tests assert after every crash, race and rollback.
 */

export interface BundleRowState {
  status: string;
  response?: unknown;
  response_delivery_pending?: boolean;
  delivery_owner?: string;
  [key: string]: unknown;
}

/** The bundle's rows' metadata, in question order. */
export async function rowsOf(db: Db, pendingId: string): Promise<BundleRowState[]> {
  const { rows } = await db.query<{ metadata: BundleRowState }>(
    `SELECT metadata FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND type = 'clarification_request'
      ORDER BY (metadata->>'question_index')::int, created_at, id`,
    [pendingId],
  );
  return rows.map((row) => row.metadata);
}

/** Pending again after a rollback: no answer, no delivery marker, no owner. */
export function isRestored(rows: readonly BundleRowState[]): boolean {
  return (
    rows.length > 0 &&
    rows.every((row) => row.status === 'pending' && !('response' in row) && !('response_delivery_pending' in row) && !('delivery_owner' in row))
  );
}

/** Where the bundle settled: `final` (a winner, delivered or resumed), `delivering`, or `open` (no winner). */
export function settlement(rows: readonly BundleRowState[]): 'final' | 'delivering' | 'open' {
  const terminal = rows.filter((row) => row.status === 'answered' || row.status === 'rejected');
  if (terminal.length === 0) return 'open';
  return terminal.some((row) => row.response_delivery_pending === true) ? 'delivering' : 'final';
}

export async function isActive(db: Db, pendingId: string): Promise<boolean> {
  const { rows } = await db.query<{ active: boolean }>(`SELECT active FROM clarification_bundles WHERE pending_id = $1`, [pendingId]);
  return rows[0]?.active === true;
}

/** The successor turns made for resuming the agent after this bundle (`metadata.resume_of`). */
export async function resumeTurns(db: Db, pendingId: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(`SELECT id FROM task_session_turns WHERE metadata->>'resume_of' = $1 ORDER BY created_at`, [
    pendingId,
  ]);
  return rows.map((row) => row.id);
}

/** The resume prompts queued for the bundle: the turn each is on. */
export async function resumePrompts(db: Db, pendingId: string): Promise<string[]> {
  const { rows } = await db.query<{ turn_id: string }>(
    `SELECT turn_id FROM task_session_messages WHERE type = 'resume_prompt' AND metadata->>'resume_of' = $1`,
    [pendingId],
  );
  return rows.map((row) => row.turn_id);
}

/** The bundle's events, in feed order. */
export async function eventTypes(db: Db, pendingId: string): Promise<string[]> {
  const { rows } = await db.query<{ type: string }>(`SELECT type FROM question_events WHERE pending_id = $1 ORDER BY id`, [pendingId]);
  return rows.map((row) => row.type);
}

/** The bundle the session asked most recently (the one an in-session ask just created). */
export async function latestPendingId(db: Db, sessionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ pending_id: string }>(
    `SELECT pending_id FROM clarification_bundles WHERE session_id = $1 ORDER BY created_at DESC LIMIT 1`,
    [sessionId],
  );
  return rows[0]?.pending_id;
}

/** Processes holding the agent's live wait of the bundle. */
export async function presence(db: Db, pendingId: string): Promise<string[]> {
  const { rows } = await db.query<{ process_id: string }>(`SELECT process_id FROM clarification_waiters WHERE pending_id = $1`, [pendingId]);
  return rows.map((row) => row.process_id);
}
