-- access_find_session_task_id: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT task_id FROM task_sessions WHERE id = $1
