-- session_messages (after): a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
--   $2 limit
--   $3 after_at
--   $4 after_id
SELECT id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata,
  created_at, updated_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at_key FROM task_session_messages
        WHERE task_session_id = $1 AND (created_at, id) > ($3::timestamptz, $4)
        ORDER BY created_at, id LIMIT $2
