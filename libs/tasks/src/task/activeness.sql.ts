/**
 * The one activeness rule (D4 in docs/rules.md), as SQL fragments. Every consumer — the claim,
 * restore, detach, expire, the pending-clarification guard, the task pending-action projection, the
 * bundle index behind the pending list — builds its query from these helpers; none restates the rule
 * by hand. It lives with the tables it reads (tasks owns sessions, turns and messages), so the task
 * projection needs nothing from clarification. Its imports, session-state.ts and bundle-task.sql.ts
 * (rule M5), import nothing: migrations use this module too and must not load the Nest modules.
 *
 * Each helper takes the SQL alias of the row it talks about and returns a boolean expression.
 */
import { bundleTaskIdSql } from './bundle-task.sql.js';
import { TERMINAL_SESSION_STATES } from '../session/session-state.js';

export const CLARIFICATION_REQUEST = 'clarification_request';
const TERMINAL_SESSION_STATES_SQL = `(${TERMINAL_SESSION_STATES.map((state) => `'${state}'`).join(', ')})`;

/**
 * A turn has authority unless it is a reserved successor whose prompt was never dispatched:
 * `NOT prompt_dispatch_pending OR prompt_dispatch_attempted OR the turn has any message`.
 */
export function turnAuthority(turnAlias: string): string {
  return `(COALESCE(${turnAlias}.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(${turnAlias}.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = ${turnAlias}.id))`;
}

/** The id of the session's current turn: its newest authoritative turn (completed_at plays no part). */
export function currentTurnId(sessionIdExpression: string): string {
  return `(SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = ${sessionIdExpression} AND ${turnAuthority('current_t')}
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)`;
}

/** Absent status counts as pending; an unrecognized value does not. */
export function pendingStatus(messageAlias: string): string {
  return `COALESCE(${messageAlias}.metadata->>'status', '') IN ('', 'pending')`;
}

export function nonTerminalSession(sessionAlias: string): string {
  return `${sessionAlias}.state NOT IN ${TERMINAL_SESSION_STATES_SQL}`;
}

/** A clarification row on its session's current turn. */
export function onCurrentTurn(messageAlias: string): string {
  return `(${messageAlias}.type = '${CLARIFICATION_REQUEST}'
    AND ${messageAlias}.turn_id = ${currentTurnId(`${messageAlias}.task_session_id`)})`;
}

/** A still-pending row of the current turn, whatever the session's state (what detach and expire touch). */
export function currentPendingRow(messageAlias: string): string {
  return `(${onCurrentTurn(messageAlias)} AND ${pendingStatus(messageAlias)})`;
}

/** The session of the row is not terminal. */
export function liveSessionOf(messageAlias: string): string {
  return `EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = ${messageAlias}.task_session_id AND ${nonTerminalSession('active_s')})`;
}

/** Every row sharing the row's pending_id is a clarification row of the same session and turn. */
export function wellFormedBundle(messageAlias: string): string {
  return `NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = ${messageAlias}.metadata->>'pending_id'
      AND (malformed_m.type <> '${CLARIFICATION_REQUEST}'
        OR malformed_m.task_session_id <> ${messageAlias}.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM ${messageAlias}.turn_id))`;
}

/**
 * A pending row of an active bundle — the one membership test (rule D4): pending, on the current
 * turn of a session that is not terminal, in a well-formed bundle. Listable, countable by the
 * guard and the projection, and exactly what the claim may transition: a bundle the claim would
 * refuse (malformed, rule R2) is never shown as pending.
 */
export function activeRow(messageAlias: string): string {
  return `(${currentPendingRow(messageAlias)} AND ${liveSessionOf(messageAlias)} AND ${wellFormedBundle(messageAlias)})`;
}

/**
 * A row of a won claim whose delivery is not confirmed yet — the resolver's `Settlement.Delivering`,
 * read from the same marker. Not active (no claim may take it), yet not settled either: the delivery
 * may still be refused and the claim rolled back, making the bundle pending again.
 */
export function deliveryPendingRow(messageAlias: string): string {
  return `(${messageAlias}.type = '${CLARIFICATION_REQUEST}' AND ${messageAlias}.metadata->>'response_delivery_pending' = 'true')`;
}

/**
 * A row of a bundle that is its worker's decision until a resolution is final: active, or held by a
 * winner whose delivery is pending in a live session (being answered, not gone). Only for showing and
 * checking a decision — what may be claimed is `activeRow` alone.
 */
export function activeOrHeldRow(messageAlias: string): string {
  return `(${activeRow(messageAlias)} OR (${deliveryPendingRow(messageAlias)} AND ${liveSessionOf(messageAlias)}))`;
}

/** The session has an active bundle (the workflow guard and the pending-action projection). */
export function sessionHasActiveBundle(sessionIdExpression: string): string {
  return `EXISTS (SELECT 1 FROM task_session_messages guard_m
    WHERE guard_m.task_session_id = ${sessionIdExpression} AND ${activeRow('guard_m')})`;
}

/** The bundle named by the pending-id expression is active. */
export function bundleIsActive(pendingIdExpression: string): string {
  return `EXISTS (SELECT 1 FROM task_session_messages bundle_m
    WHERE bundle_m.metadata->>'pending_id' = ${pendingIdExpression} AND ${activeRow('bundle_m')})`;
}

/**
 * The bundle index (`clarification_bundles`): one row per bundle, derived from its message rows —
 * session, M5 task, D1 `created_at` (the earliest of all its rows), the visibility key ('' when every
 * caller may see the task: no workspace, or one that does not exist) and `active` by the rule above.
 * `pendingIdsSql` is a query returning the `pending_id`s to derive. The index is what the pending list
 * walks; every transaction that changes activeness keeps it in step (tests compare it with the rule).
 */
export function bundleIndexRowsSql(pendingIdsSql: string): string {
  return `SELECT b.pending_id,
        (array_agg(b.task_session_id ORDER BY b.created_at, b.id))[1] AS session_id,
        COALESCE((array_agg(${bundleTaskIdSql('b.task_id', 's.task_id')} ORDER BY b.created_at, b.id))[1], '') AS task_id,
        MIN(b.created_at) AS created_at,
        bool_or(${activeRow('b')}) AS active
      FROM (SELECT m.*, m.metadata->>'pending_id' AS pending_id FROM task_session_messages m
             WHERE m.type = '${CLARIFICATION_REQUEST}' AND m.metadata->>'pending_id' IN (${pendingIdsSql})) b
      LEFT JOIN task_sessions s ON s.id = b.task_session_id
     GROUP BY b.pending_id`;
}

/** The visibility key of a task alias: '' when the task names no workspace or a missing one. */
export function visibilityKey(taskAlias: string): string {
  return `CASE WHEN ${taskAlias}.workspace_id = ''
      OR NOT EXISTS (SELECT 1 FROM workspaces key_w WHERE key_w.id = ${taskAlias}.workspace_id)
    THEN '' ELSE ${taskAlias}.workspace_id END`;
}

/** Upserts the index rows of the bundles `pendingIdsSql` returns; RETURNING each row written. */
export function upsertBundleIndexSql(pendingIdsSql: string): string {
  return `INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
    SELECT derived.pending_id, derived.session_id, derived.task_id, COALESCE((SELECT ${visibilityKey('key_t')}
             FROM tasks key_t WHERE key_t.id = derived.task_id), ''), derived.created_at, derived.active
      FROM (${bundleIndexRowsSql(pendingIdsSql)}) derived
    ON CONFLICT (pending_id) DO UPDATE SET active = EXCLUDED.active, created_at = EXCLUDED.created_at
      WHERE clarification_bundles.active IS DISTINCT FROM EXCLUDED.active
         OR clarification_bundles.created_at IS DISTINCT FROM EXCLUDED.created_at
    RETURNING pending_id, active`;
}
