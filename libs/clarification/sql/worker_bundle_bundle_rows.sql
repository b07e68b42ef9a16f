-- worker_bundle_bundle_rows: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_ids
SELECT m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = ANY($1) AND m.type = 'clarification_request'
        ORDER BY m.metadata->>'pending_id', COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id
