-- waiter_presence_announce: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 process_id
INSERT INTO clarification_waiters (pending_id, process_id) VALUES ($1, $2) ON CONFLICT (pending_id, process_id) DO NOTHING
