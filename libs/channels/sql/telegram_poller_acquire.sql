-- telegram_poller_acquire: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 owner
--   $2 lease_ms
INSERT INTO chat_pollers (platform, owner, expires_at) VALUES ('telegram', $1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (platform) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
        WHERE chat_pollers.owner IS NULL OR chat_pollers.owner = EXCLUDED.owner OR chat_pollers.expires_at < clock_timestamp()
       RETURNING next_offset::text AS next_offset
