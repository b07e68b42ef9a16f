-- chat_link_request: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 code_sha256
--   $2 platform
--   $3 account_id
--   $4 ttl_ms
INSERT INTO chat_link_requests (code_sha256, platform, platform_user_id, expires_at)
       VALUES ($1, $2, $3, clock_timestamp() + make_interval(secs => $4::double precision / 1000))
