/**
 * The one activeness rule of baseline-semantics.md, as SQL fragments. Every consumer — the claim,
 * restore, detach, expire, the pending-clarification guard, the task pending-action projection and
 * the pending list — builds its query from these helpers; none restates the rule by hand.
 *
 * Each helper takes the SQL alias of the row it talks about and returns a boolean expression.
 */

export const CLARIFICATION_REQUEST = 'clarification_request';
const TERMINAL_SESSION_STATES_SQL = `('COMPLETED', 'FAILED', 'CANCELLED')`;

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


/** Every row sharing the row's pending_id is a clarification row of the same session and turn. */
export function wellFormedBundle(messageAlias: string): string {
  return `NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = ${messageAlias}.metadata->>'pending_id'
      AND (malformed_m.type <> '${CLARIFICATION_REQUEST}'
        OR malformed_m.task_session_id <> ${messageAlias}.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM ${messageAlias}.turn_id))`;
}

/**
 * A pending row of an active bundle — the one membership test (spec D4): pending, on the current
 * turn of a session that is not terminal, in a well-formed bundle. Listable, countable by the
 * guard and the projection, and exactly what the claim may transition: a bundle the claim would
 * refuse (malformed, spec R2) is never shown as pending.
 */
export function activeRow(messageAlias: string): string {
  return `(${currentPendingRow(messageAlias)}
    AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = ${messageAlias}.task_session_id AND ${nonTerminalSession('active_s')})
    AND ${wellFormedBundle(messageAlias)})`;
}

/** The session has an active bundle (the workflow guard and the pending-action projection). */
export function sessionHasActiveBundle(sessionIdExpression: string): string {
  return `EXISTS (SELECT 1 FROM task_session_messages guard_m
    WHERE guard_m.task_session_id = ${sessionIdExpression} AND ${activeRow('guard_m')})`;
}
