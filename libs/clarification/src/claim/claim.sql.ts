import { processIsLive } from '#persistence';
import { activeRow } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import { insertEventsCtes } from '../events/question-event.repository.js';
import { BUNDLE_CHANNEL } from '../wait/bundle-signal.channel.js';

/** The payload of the `settled` signal a final answer sends (`from`: the process that made it final). */
export function settledSignal(pendingId: string, from: string): string {
  return JSON.stringify({ pending_id: pendingId, kind: 'settled', from });
}

/**
 * The claim's two statements, fixed texts sent as named prepared statements (planned once per
 * connection: the claim CTE's planning cost about twice its execution).
 */
export const CLAIM_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS locked,
  (SELECT w.process_id FROM clarification_waiters w
    WHERE w.pending_id = $2 AND w.process_id <> $3 AND ${processIsLive('w.process_id')} LIMIT 1) AS remote_agent`;

export const CLAIM_SQL = `WITH winner_name AS (SELECT winner_u.name FROM users winner_u WHERE winner_u.id = $17::jsonb->>'user_id'),
  claimed AS (
    UPDATE task_session_messages m
       SET metadata = m.metadata || jsonb_build_object('status', $2::text)
             || CASE WHEN $2 = 'answered' THEN jsonb_build_object('response', $3::jsonb -> (m.metadata->>'question_id')) ELSE '{}'::jsonb END
             || CASE WHEN $4 THEN '{}'::jsonb ELSE jsonb_build_object('response_delivery_pending', true, 'delivery_owner', $5::text) END
             || jsonb_build_object('resolved_by', $17::jsonb || jsonb_build_object('name', (SELECT name FROM winner_name), 'at', statement_timestamp())),
           updated_at = clock_timestamp()
     WHERE m.metadata->>'pending_id' = $1 AND ${activeRow('m')}
     RETURNING m.id, m.metadata),
  won AS (SELECT 1 AS yes FROM claimed LIMIT 1),
  indexed AS (UPDATE clarification_bundles SET active = false WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  successor AS (
    INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
    SELECT $6::text, $7, $8, jsonb_build_object('prompt_dispatch_pending', true, 'prompt_dispatch_attempted', true, 'resume_of', $1::text)
     WHERE $6::text IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  superseded AS (
    UPDATE clarification_bundles SET active = false
     WHERE session_id = $7 AND active AND pending_id <> $1 AND EXISTS (SELECT 1 FROM successor)
    RETURNING pending_id, session_id, task_id),
  prompt AS (
    INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
    SELECT $10::text, $7, $8, s.id, 'system', 'resume_prompt', $11, $12::jsonb FROM successor s WHERE $10::text IS NOT NULL
    RETURNING id),
  handoff AS (
    INSERT INTO clarification_handoffs (pending_id, process_id, response)
    SELECT $1, $5, $13::jsonb WHERE $13::jsonb IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    ON CONFLICT (pending_id) DO UPDATE SET process_id = EXCLUDED.process_id, response = EXCLUDED.response, created_at = clock_timestamp()
    RETURNING pending_id),
  running AS (
    UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
     WHERE id = $7 AND state = 'WAITING_FOR_INPUT' AND $4 AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  presence AS (DELETE FROM clarification_waiters WHERE pending_id = $1 AND $4 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  audited AS (
    INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, at)
    SELECT $18, $1, 'won', $17::jsonb->>'surface', $17::jsonb->>'kind', $17::jsonb->>'user_id', (SELECT name FROM winner_name),
           $2 = 'rejected', $19, statement_timestamp()
      FROM won
    ON CONFLICT (attempt_id) DO UPDATE SET outcome = 'won', detail = NULL, at = EXCLUDED.at
    RETURNING id),
  ${insertEventsCtes(`
    SELECT $14::text AS type, $1::text AS pending_id, $7::text AS session_id, $9::text AS task_id,
           $15::jsonb || jsonb_build_object('resolved_by', (SELECT c.metadata->'resolved_by' FROM claimed c LIMIT 1)) AS payload
      FROM won WHERE $4
    UNION ALL
    SELECT 'SUPERSEDED', pending_id, session_id, task_id, '{}'::jsonb FROM superseded`)},
  signals AS (
    SELECT pg_notify('${BUNDLE_CHANNEL}', $16::text) FROM won WHERE $16::text IS NOT NULL
    UNION ALL
    ${notifyBundlesSql('SELECT pending_id FROM superseded', 'superseded')}),
  effects AS (
    SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM prompt) + (SELECT COUNT(*) FROM handoff)
         + (SELECT COUNT(*) FROM running) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM events)
         + (SELECT COUNT(*) FROM signals) AS written)
  SELECT c.id, c.metadata, effects.written FROM claimed c, effects`;
