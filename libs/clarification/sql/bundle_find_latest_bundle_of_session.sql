-- bundle_find_latest_bundle_of_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content,
  m.metadata, m.created_at, m.updated_at FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.type = 'clarification_request' AND m.metadata->>'pending_id' = (
                SELECT latest.metadata->>'pending_id' FROM task_session_messages latest
                 WHERE latest.task_session_id = $1 AND latest.type = 'clarification_request'
                 ORDER BY latest.created_at DESC, latest.id DESC LIMIT 1)
        ORDER BY COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id
