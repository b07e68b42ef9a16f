-- delivery_ownership_abandon_lock_row: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT id FROM task_sessions WHERE id = $1 FOR UPDATE
