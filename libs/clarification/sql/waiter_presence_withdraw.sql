-- waiter_presence_withdraw: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 process_id
DELETE FROM clarification_waiters WHERE pending_id = $1 AND process_id = $2
