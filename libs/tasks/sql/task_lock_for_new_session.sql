-- task_lock_for_new_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT id, archived_at FROM tasks WHERE id = $1 FOR SHARE
