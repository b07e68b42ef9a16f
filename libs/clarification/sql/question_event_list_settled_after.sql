-- question_event_list_settled_after: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 after_id
--   $2 workspace_id
--   $3 limit
WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint * 65536 AS position)
       SELECT e.*, e.id IS NOT NULL AS present,
              EXISTS (SELECT 1 FROM question_events later, horizon WHERE later.id >= horizon.position) AS unsettled
         FROM horizon
         LEFT JOIN LATERAL (
           SELECT id::text AS id, type, pending_id, session_id, task_id, workspace_id, payload, created_at FROM question_events
            WHERE id > $1::bigint AND id < horizon.position AND ($2::text IS NULL OR workspace_id = $2)
            ORDER BY question_events.id LIMIT $3) e ON true
