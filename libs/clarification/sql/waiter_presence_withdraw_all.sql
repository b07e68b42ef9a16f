-- waiter_presence_withdraw_all: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 process_id
DELETE FROM clarification_waiters WHERE process_id = $1
