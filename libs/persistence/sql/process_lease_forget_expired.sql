-- process_lease_forget_expired: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 older_than_ms
DELETE FROM parley_processes WHERE expires_at < clock_timestamp() - make_interval(secs => $1::double precision / 1000) RETURNING id
