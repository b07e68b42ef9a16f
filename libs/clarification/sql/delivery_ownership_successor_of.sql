-- delivery_ownership_successor_of: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
SELECT id FROM task_session_turns WHERE metadata->>'resume_of' = $1 ORDER BY created_at DESC LIMIT 1
