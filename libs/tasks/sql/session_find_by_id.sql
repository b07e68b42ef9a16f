-- session_find_by_id: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT id, task_id, state, resume_url, created_at, updated_at FROM task_sessions WHERE id = $1
