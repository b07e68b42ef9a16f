-- process_lease_release: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 process_id
DELETE FROM parley_processes WHERE id = $1
