-- browser_session_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 session_sha256
--   $3 user_id
--   $4 token_id
--   $5 idle_timeout_ms
--   $6 max_age_ms
WITH purged AS (
         DELETE FROM browser_sessions
          WHERE user_id = $3 AND (idle_expires_at <= clock_timestamp() OR expires_at <= clock_timestamp())
       )
       INSERT INTO browser_sessions (id, session_sha256, user_id, token_id, idle_expires_at, expires_at)
       VALUES ($1, $2, $3, $4,
               clock_timestamp() + make_interval(secs => $5::double precision / 1000),
               clock_timestamp() + make_interval(secs => $6::double precision / 1000))
