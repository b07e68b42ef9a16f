-- delivery_ownership_resume_held: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 owner
SELECT 1 FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND metadata->>'delivery_owner' = $2
            AND metadata->>'response_delivery_pending' = 'true' LIMIT 1
