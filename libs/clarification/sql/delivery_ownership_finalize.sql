-- delivery_ownership_finalize: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 owner
--   $3 session_id
--   $4 task_id
--   $5 type
--   $6 payload
--   $7 settled_signal
WITH done AS (
         UPDATE task_session_messages m
            SET metadata = m.metadata - 'response_delivery_pending' - 'delivery_owner', updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true' AND m.metadata->>'delivery_owner' = $2
          RETURNING m.id, m.metadata->'resolved_by' AS resolved_by),
       won AS (SELECT 1 AS yes FROM done LIMIT 1),
       handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       presence AS (DELETE FROM clarification_waiters WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       running AS (
         UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
          WHERE id = $3 AND state = 'WAITING_FOR_INPUT' AND EXISTS (SELECT 1 FROM won) RETURNING id),
       events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (SELECT $5::text AS type, $1::text AS pending_id, $3::text AS session_id, $4::text AS task_id,
         $6::jsonb || jsonb_build_object('resolved_by', (SELECT d.resolved_by FROM done d LIMIT 1)) AS payload FROM won) raw) source,
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
       signals AS (SELECT pg_notify('parley_bundle', $7::text) FROM won)
       SELECT (SELECT COUNT(*) FROM done)::text AS finalized,
              (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM running)
                + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written
