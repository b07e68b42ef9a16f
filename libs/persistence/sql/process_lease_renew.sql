-- process_lease_renew: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 process_id
--   $2 ttl_ms
INSERT INTO parley_processes (id, expires_at) VALUES ($1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (id) DO UPDATE SET heartbeat_at = clock_timestamp(), expires_at = EXCLUDED.expires_at
