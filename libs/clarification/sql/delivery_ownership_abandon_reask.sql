-- delivery_ownership_abandon_reask: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 others
WITH events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (SELECT 'ASKED'::text AS type, b.pending_id, b.session_id, b.task_id, '{}'::jsonb AS payload
             FROM clarification_bundles b WHERE b.pending_id = ANY($1::text[])) raw) source,
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
           SELECT COUNT(*) FROM events
