import { namedStatement, processIsLive } from '#persistence';
import { activeRow } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import { insertEventsCtes } from '../bundle/question-event.sql.js';
import { BUNDLE_CHANNEL } from '../bundle/bundle-signal.channel.js';

/** The payload of the `settled` signal a final answer sends (`from`: the process that made it final). */
export function settledSignal(pendingId: string, from: string): string {
  return JSON.stringify({ pending_id: pendingId, kind: 'settled', from });
}

/**
 * The claim's two statements (the lock read also reads the task's workspace, which the receipt the
 * claim stores names), fixed texts sent as named prepared statements: planned once per
 * connection, as planning the claim CTE costs more than running it (docs/benchmarks.md, "5. planning").
 */
export const CLAIM_LOCK = namedStatement(
  'claim_lock',
  ['session_id', 'pending_id', 'process_id', 'task_id'],
  `SELECT pg_advisory_xact_lock(hashtextextended(:session_id, 0)) IS NULL AS locked,
  (SELECT w.process_id FROM clarification_waiters w
    WHERE w.pending_id = :pending_id AND w.process_id <> :process_id AND ${processIsLive('w.process_id')} LIMIT 1) AS remote_agent,
  COALESCE((SELECT t.workspace_id FROM tasks t WHERE t.id = :task_id), '') AS workspace_id`,
);

export const CLAIM = namedStatement(
  'claim',
  [
    'pending_id', 'terminal', 'responses', 'final', 'owner', 'successor_turn_id', 'session_id',
    'session_task_id', 'bundle_task_id', 'prompt_message_id', 'prompt_content',
    'prompt_metadata', 'handoff', 'event_type', 'event_payload', 'signal', 'winner',
    'attempt_id', 'reject_reason', 'receipt',
  ],
  `WITH winner_name AS (SELECT winner_u.name FROM users winner_u WHERE winner_u.id = :winner::jsonb->>'user_id'),
  claimed AS (
    UPDATE task_session_messages m
       SET metadata = m.metadata || jsonb_build_object('status', :terminal::text)
             || CASE WHEN :terminal = 'answered' THEN jsonb_build_object('response', :responses::jsonb -> (m.metadata->>'question_id')) ELSE '{}'::jsonb END
             || CASE WHEN :final THEN '{}'::jsonb ELSE jsonb_build_object('response_delivery_pending', true, 'delivery_owner', :owner::text) END
             || jsonb_build_object('resolved_by', :winner::jsonb || jsonb_build_object('name', (SELECT name FROM winner_name), 'at', statement_timestamp()))
             || jsonb_build_object('receipt', :receipt::text),
           updated_at = clock_timestamp()
     WHERE m.metadata->>'pending_id' = :pending_id AND ${activeRow('m')}
     RETURNING m.id, m.metadata),
  won AS (SELECT 1 AS yes FROM claimed LIMIT 1),
  indexed AS (UPDATE clarification_bundles SET active = false WHERE pending_id = :pending_id AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  successor AS (
    INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
    SELECT :successor_turn_id::text, :session_id, :session_task_id, jsonb_build_object('prompt_dispatch_pending', true, 'prompt_dispatch_attempted', true, 'resume_of', :pending_id::text)
     WHERE :successor_turn_id::text IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  superseded AS (
    UPDATE clarification_bundles SET active = false
     WHERE session_id = :session_id AND active AND pending_id <> :pending_id AND EXISTS (SELECT 1 FROM successor)
    RETURNING pending_id, session_id, task_id),
  prompt AS (
    INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
    SELECT :prompt_message_id::text, :session_id, :session_task_id, s.id, 'system', 'resume_prompt', :prompt_content, :prompt_metadata::jsonb FROM successor s WHERE :prompt_message_id::text IS NOT NULL
    RETURNING id),
  handoff AS (
    INSERT INTO clarification_handoffs (pending_id, process_id, response)
    SELECT :pending_id, :owner, :handoff::jsonb WHERE :handoff::jsonb IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    ON CONFLICT (pending_id) DO UPDATE SET process_id = EXCLUDED.process_id, response = EXCLUDED.response, created_at = clock_timestamp()
    RETURNING pending_id),
  running AS (
    UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
     WHERE id = :session_id AND state = 'WAITING_FOR_INPUT' AND :final AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  presence AS (DELETE FROM clarification_waiters WHERE pending_id = :pending_id AND :final AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  audited AS (
    INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, at)
    SELECT :attempt_id, :pending_id, 'won', :winner::jsonb->>'surface', :winner::jsonb->>'kind', :winner::jsonb->>'user_id', (SELECT name FROM winner_name),
           :terminal = 'rejected', :reject_reason, statement_timestamp()
      FROM won
    ON CONFLICT (attempt_id) DO UPDATE SET outcome = 'won', detail = NULL, at = EXCLUDED.at
    RETURNING id),
  ${insertEventsCtes(`
    SELECT :event_type::text AS type, :pending_id::text AS pending_id, :session_id::text AS session_id, :bundle_task_id::text AS task_id,
           :event_payload::jsonb || jsonb_build_object('resolved_by', (SELECT c.metadata->'resolved_by' FROM claimed c LIMIT 1)) AS payload
      FROM won WHERE :final
    UNION ALL
    SELECT 'SUPERSEDED', pending_id, session_id, task_id, '{}'::jsonb FROM superseded`)},
  signals AS (
    SELECT pg_notify('${BUNDLE_CHANNEL}', :signal::text) FROM won WHERE :signal::text IS NOT NULL
    UNION ALL
    ${notifyBundlesSql('SELECT pending_id FROM superseded', 'superseded')}),
  effects AS (
    SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM prompt) + (SELECT COUNT(*) FROM handoff)
         + (SELECT COUNT(*) FROM running) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM events)
         + (SELECT COUNT(*) FROM signals) AS written)
  SELECT c.id, c.metadata, effects.written FROM claimed c, effects`,
);
