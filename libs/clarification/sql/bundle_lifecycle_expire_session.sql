-- bundle_lifecycle_expire_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 event_payload
WITH touched AS (UPDATE task_session_messages m SET metadata = m.metadata || '{"status": "expired"}'::jsonb, updated_at = clock_timestamp()
        WHERE m.task_session_id = $1 AND ((m.type = 'clarification_request'
    AND m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(m.metadata->>'status', '') IN ('', 'pending'))
        RETURNING m.id, m.task_session_id, m.metadata->>'pending_id' AS pending_id),
       bundles AS (
         SELECT t.pending_id, MIN(t.task_session_id) AS session_id, array_agg(t.id ORDER BY t.id) AS message_ids,
                COALESCE((SELECT COALESCE(NULLIF(first_m.task_id, ''), s.task_id, '')
                            FROM task_session_messages first_m LEFT JOIN task_sessions s ON s.id = first_m.task_session_id
                           WHERE first_m.metadata->>'pending_id' = t.pending_id AND first_m.type = 'clarification_request'
                           ORDER BY first_m.created_at, first_m.id LIMIT 1), '') AS task_id
           FROM touched t WHERE t.pending_id IS NOT NULL GROUP BY t.pending_id),
       indexed AS (UPDATE clarification_bundles SET active = false
                    WHERE TRUE AND active AND pending_id IN (SELECT pending_id FROM bundles) RETURNING pending_id),
       events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (SELECT 'EXPIRED'::text AS type, pending_id, session_id, task_id, $2::jsonb AS payload FROM bundles) raw) source,
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
       signalled AS (SELECT pending_id FROM bundles),
       signals AS (SELECT pg_notify('parley_bundle', json_build_object('pending_id', source.pending_id, 'kind', 'expired')::text)
    FROM (SELECT pending_id FROM signalled) source)
       SELECT b.pending_id, b.session_id, b.task_id, b.message_ids, effects.written
         FROM (SELECT s.pending_id, COALESCE(b.session_id, '') AS session_id, COALESCE(b.task_id, '') AS task_id,
                      COALESCE(b.message_ids, ARRAY[]::text[]) AS message_ids
                 FROM signalled s LEFT JOIN bundles b ON b.pending_id = s.pending_id
               UNION SELECT b.pending_id, b.session_id, b.task_id, b.message_ids FROM bundles b) b,
              (SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written) effects
        ORDER BY b.pending_id
