-- deadline_drop: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
DELETE FROM clarification_deadlines WHERE pending_id = $1
