-- session_lock_by_task_id: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 task_id
SELECT id FROM task_sessions WHERE task_id = $1 ORDER BY id
