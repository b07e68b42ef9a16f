-- escalation_run_step: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 type
--   $3 reassign
--   $4 step
--   $5 reassign_note
WITH live AS (SELECT EXISTS (SELECT 1 FROM task_session_messages bundle_m
    WHERE bundle_m.metadata->>'pending_id' = $1 AND (((bundle_m.type = 'clarification_request'
    AND bundle_m.turn_id = (SELECT current_t.id FROM task_session_turns current_t
            WHERE current_t.task_session_id = bundle_m.task_session_id AND (COALESCE(current_t.metadata->>'prompt_dispatch_pending', 'false') <> 'true'
    OR COALESCE(current_t.metadata->>'prompt_dispatch_attempted', 'false') = 'true'
    OR EXISTS (SELECT 1 FROM task_session_messages authority_m WHERE authority_m.turn_id = current_t.id))
            ORDER BY current_t.started_at DESC, current_t.created_at DESC, current_t.id DESC
            LIMIT 1)) AND COALESCE(bundle_m.metadata->>'status', '') IN ('', 'pending')) AND EXISTS (SELECT 1 FROM task_sessions active_s
                 WHERE active_s.id = bundle_m.task_session_id AND active_s.state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')) AND NOT EXISTS (SELECT 1 FROM task_session_messages malformed_m
    WHERE malformed_m.metadata->>'pending_id' = bundle_m.metadata->>'pending_id'
      AND (malformed_m.type <> 'clarification_request'
        OR malformed_m.task_session_id <> bundle_m.task_session_id
        OR malformed_m.turn_id IS DISTINCT FROM bundle_m.turn_id)))) AS yes),
       current AS (
         SELECT m.metadata->'routing'->'answerers' AS answerers FROM task_session_messages m
          WHERE m.metadata->>'pending_id' = $1 AND m.type = 'clarification_request' ORDER BY m.created_at, m.id LIMIT 1),
       reassigned AS (
         UPDATE task_session_messages m
            SET metadata = jsonb_set(m.metadata, '{routing,answerers}', $3::jsonb), updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = $1 AND m.type = 'clarification_request' AND $3::jsonb IS NOT NULL AND (SELECT yes FROM live)
         RETURNING m.id),
       audited AS (
         INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, detail, at)
         SELECT gen_random_uuid()::text, $1, 'escalated', 'escalation', 'system', $5, statement_timestamp()
          WHERE $3::jsonb IS NOT NULL AND (SELECT yes FROM live)
         RETURNING id),
       events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (SELECT $2::text AS type, b.pending_id, b.session_id, b.task_id,
              jsonb_build_object('step', $4::int, 'eligible', COALESCE($3::jsonb, (SELECT answerers FROM current), '[]'::jsonb),
                                 'everyone', $3::jsonb IS NULL AND COALESCE(jsonb_typeof((SELECT answerers FROM current)), 'null') <> 'array') AS payload
         FROM clarification_bundles b WHERE b.pending_id = $1 AND (SELECT yes FROM live)) raw) source,
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
       signals AS (SELECT pg_notify('parley_bundle', json_build_object('pending_id', $1::text, 'kind', 'routed')::text) FROM events),
       dropped AS (
         DELETE FROM clarification_escalations WHERE pending_id = $1 AND (step = $4 OR NOT (SELECT yes FROM live)) RETURNING step)
       SELECT (SELECT yes FROM live) AS fired,
              (SELECT COUNT(*) FROM reassigned) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM signals) + (SELECT COUNT(*) FROM dropped) AS written
