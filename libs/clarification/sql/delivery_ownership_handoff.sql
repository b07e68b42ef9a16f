-- delivery_ownership_handoff: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 process_id
SELECT response FROM clarification_handoffs WHERE pending_id = $1 AND process_id = $2
