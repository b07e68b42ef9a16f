-- receipt_record_find: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 receipt
--   $3 session_id
SELECT EXISTS (SELECT 1 FROM task_session_messages m
                       WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'receipt' = $2) AS recorded,
              (SELECT s.opened_by FROM task_sessions s WHERE s.id = $3) AS opened_by
