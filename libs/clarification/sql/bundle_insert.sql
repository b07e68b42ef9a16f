-- bundle_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 session_id
--   $3 task_id
--   $4 turn_id
--   $5 rows
--   $6 event_payload
--   $7 expires_in_seconds
--   $8 escalation
WITH deadline AS (
         SELECT d.at, to_char(d.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS iso
           FROM (SELECT date_trunc('milliseconds', statement_timestamp() + make_interval(secs => $7::int)) AS at) d
          WHERE $7::int IS NOT NULL
       ), inserted AS (
         INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata, created_at)
         SELECT q.id, $2, $3, $4, 'agent', 'clarification_request', q.content, true,
                q.metadata || jsonb_strip_nulls(jsonb_build_object('expires_at', (SELECT iso FROM deadline))),
                clock_timestamp() + make_interval(secs => q.n / 1000000.0)
           FROM jsonb_to_recordset($5::jsonb) AS q(id text, content text, metadata jsonb, n int)
         RETURNING id, task_session_id, task_id, turn_id, content, metadata, created_at, updated_at
       ), waiting AS (
         UPDATE task_sessions SET state = 'WAITING_FOR_INPUT', updated_at = clock_timestamp() WHERE id = $2 RETURNING id
       ), indexed AS (
         INSERT INTO clarification_bundles (pending_id, session_id, task_id, visibility_key, created_at, active)
         SELECT $1, $2, $3, COALESCE((SELECT CASE WHEN t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces w WHERE w.id = t.workspace_id)
                                        THEN '' ELSE t.workspace_id END FROM tasks t WHERE t.id = $3), ''),
                (SELECT MIN(created_at) FROM inserted), true
         RETURNING pending_id
       ), scheduled AS (
         INSERT INTO clarification_deadlines (pending_id, session_id, expires_at, due_at)
         SELECT $1, $2, d.at, d.at FROM deadline d, indexed
         RETURNING pending_id
       ), escalations AS (
         INSERT INTO clarification_escalations (pending_id, step, session_id, due_at, action)
         SELECT $1, e.step, $2, statement_timestamp() + make_interval(secs => e.after_seconds), e.action
           FROM jsonb_to_recordset($8::jsonb) AS e(step int, after_seconds int, action jsonb), indexed
         RETURNING pending_id
       ), events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (SELECT 'ASKED'::text AS type, $1::text AS pending_id, $2::text AS session_id, $3::text AS task_id,
           $6::jsonb || jsonb_strip_nulls(jsonb_build_object('expires_at', (SELECT iso FROM deadline))) AS payload) raw) source,
           (SELECT COALESCE(MAX(mine.id), pg_current_xact_id()::text::bigint * 65536 - 1) AS base FROM question_events mine
             WHERE mine.id >= pg_current_xact_id()::text::bigint * 65536 AND mine.id < (pg_current_xact_id()::text::bigint + 1) * 65536) position
    RETURNING id, type, pending_id, session_id, task_id, workspace_id, payload, created_at),
  events_outbox AS (INSERT INTO webhook_deliveries (id, subscription_id, workspace_id, event_id, event_type, pending_id, session_id, task_id, payload, occurred_at)
    SELECT gen_random_uuid()::text, hook.id, outbox_e.workspace_id, outbox_e.id, outbox_e.type, outbox_e.pending_id,
           outbox_e.session_id, outbox_e.task_id, outbox_e.payload, outbox_e.created_at
      FROM events outbox_e
      JOIN webhook_subscriptions hook ON hook.workspace_id = outbox_e.workspace_id AND hook.status = 'active'
     WHERE (CASE outbox_e.type WHEN 'ASKED' THEN 'asked' WHEN 'ANSWERED' THEN 'resolved' WHEN 'REJECTED' THEN 'resolved' WHEN 'EXPIRED' THEN 'expired' WHEN 'DETACHED' THEN 'detached' WHEN 'REMINDED' THEN 'reminded' WHEN 'ESCALATED' THEN 'escalated' END) = ANY (hook.event_types)
    RETURNING id, pg_notify('parley_webhooks', ''))
       SELECT m.id, m.task_session_id, m.task_id, $3::text AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at, m.updated_at
         FROM inserted m ORDER BY COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id
