-- deadline_session_has_delivery: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT EXISTS (SELECT 1 FROM task_session_messages
                       WHERE task_session_id = $1 AND metadata->>'response_delivery_pending' = 'true') AS delivering
