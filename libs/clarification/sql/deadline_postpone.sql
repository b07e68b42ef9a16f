-- deadline_postpone: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
--   $2 delay_ms
UPDATE clarification_deadlines SET due_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000) WHERE pending_id = $1
