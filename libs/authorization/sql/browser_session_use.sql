-- browser_session_use: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_sha256
--   $2 idle_timeout_ms
--   $3 touch_after_ms
WITH live AS (
         SELECT s.id, s.user_id, s.token_id, s.last_seen_at, s.idle_expires_at, s.expires_at
           FROM browser_sessions s
           JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
          WHERE s.session_sha256 = $1
            AND s.idle_expires_at > clock_timestamp()
            AND s.expires_at > clock_timestamp()
       ), touched AS (
         UPDATE browser_sessions s
            SET last_seen_at = clock_timestamp(),
                idle_expires_at = LEAST(clock_timestamp() + make_interval(secs => $2::double precision / 1000), s.expires_at)
           FROM live
          WHERE s.id = live.id AND live.last_seen_at < clock_timestamp() - make_interval(secs => $3::double precision / 1000)
         RETURNING s.id, s.idle_expires_at
       )
       SELECT live.id, live.user_id, live.token_id, (EXTRACT(EPOCH FROM LEAST(COALESCE(touched.idle_expires_at, live.idle_expires_at), live.expires_at) - clock_timestamp()) * 1000)::float8 AS ends_in_ms
         FROM live LEFT JOIN touched ON touched.id = live.id
