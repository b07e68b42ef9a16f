-- telegram_poller_advance: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 owner
--   $2 next_offset
--   $3 lease_ms
UPDATE chat_pollers SET next_offset = GREATEST(next_offset, $2), expires_at = clock_timestamp() + make_interval(secs => $3::double precision / 1000)
        WHERE platform = 'telegram' AND owner = $1 RETURNING platform
