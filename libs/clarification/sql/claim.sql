-- claim: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 terminal
--   $3 responses
--   $4 final
--   $5 owner
--   $6 successor_turn_id
--   $7 session_id
--   $8 session_task_id
--   $9 bundle_task_id
--   $10 prompt_message_id
--   $11 prompt_content
--   $12 prompt_metadata
--   $13 handoff
--   $14 event_type
--   $15 event_payload
--   $16 signal
--   $17 winner
--   $18 attempt_id
--   $19 reject_reason
--   $20 receipt
WITH winner_name AS (SELECT winner_u.name FROM users winner_u WHERE winner_u.id = $17::jsonb->>'user_id'),
  claimed AS (
    UPDATE task_session_messages m
       SET metadata = m.metadata || jsonb_build_object('status', $2::text)
             || CASE WHEN $2 = 'answered' THEN jsonb_build_object('response', $3::jsonb -> (m.metadata->>'question_id')) ELSE '{}'::jsonb END
             || CASE WHEN $4 THEN '{}'::jsonb ELSE jsonb_build_object('response_delivery_pending', true, 'delivery_owner', $5::text) END
             || jsonb_build_object('resolved_by', $17::jsonb || jsonb_build_object('name', (SELECT name FROM winner_name), 'at', statement_timestamp()))
             || jsonb_build_object('receipt', $20::text),
           updated_at = clock_timestamp()
     WHERE m.metadata->>'pending_id' = $1 AND (((m.type = 'clarification_request'
    AND m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM m.turn_id)))
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
  events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (
    SELECT $14::text AS type, $1::text AS pending_id, $7::text AS session_id, $9::text AS task_id,
           $15::jsonb || jsonb_build_object('resolved_by', (SELECT c.metadata->'resolved_by' FROM claimed c LIMIT 1)) AS payload
      FROM won WHERE $4
    UNION ALL
    SELECT 'SUPERSEDED', pending_id, session_id, task_id, '{}'::jsonb FROM superseded) raw) source,
           (SELECT COALESCE(MAX(mine.id), pg_current_xact_id()::text::bigint * 65536 - 1) AS base FROM question_events mine
             WHERE mine.id >= pg_current_xact_id()::text::bigint * 65536 AND mine.id < (pg_current_xact_id()::text::bigint + 1) * 65536) position
    RETURNING id, type, pending_id, session_id, task_id, workspace_id, payload, created_at),
  events_outbox AS (INSERT INTO webhook_deliveries (id, subscription_id, workspace_id, event_id, event_type, pending_id, session_id, task_id, payload, occurred_at)
    SELECT gen_random_uuid()::text, hook.id, outbox_e.workspace_id, outbox_e.id, outbox_e.type, outbox_e.pending_id,
           outbox_e.session_id, outbox_e.task_id, outbox_e.payload, outbox_e.created_at
      FROM events outbox_e
      JOIN webhook_subscriptions hook ON hook.workspace_id = outbox_e.workspace_id AND hook.status = 'active'
     WHERE (CASE outbox_e.type WHEN 'ASKED' THEN 'asked' WHEN 'ANSWERED' THEN 'resolved' WHEN 'REJECTED' THEN 'resolved' WHEN 'EXPIRED' THEN 'expired' WHEN 'DETACHED' THEN 'detached' WHEN 'REMINDED' THEN 'reminded' WHEN 'ESCALATED' THEN 'escalated' END) = ANY (hook.event_types)
    RETURNING id, pg_notify('parley_webhooks', '')),
  signals AS (
    SELECT pg_notify('parley_bundle', $16::text) FROM won WHERE $16::text IS NOT NULL
    UNION ALL
    SELECT pg_notify('parley_bundle', json_build_object('pending_id', source.pending_id, 'kind', 'superseded')::text)
    FROM (SELECT pending_id FROM superseded) source),
  effects AS (
    SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM prompt) + (SELECT COUNT(*) FROM handoff)
         + (SELECT COUNT(*) FROM running) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM events)
         + (SELECT COUNT(*) FROM signals) AS written)
  SELECT c.id, c.metadata, effects.written FROM claimed c, effects
