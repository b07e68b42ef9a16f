-- session_update_state: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 state
UPDATE task_sessions SET state = $2, updated_at = clock_timestamp() WHERE id = $1 RETURNING id, task_id, state, resume_url, created_at, updated_at
