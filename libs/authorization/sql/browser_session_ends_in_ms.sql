-- browser_session_ends_in_ms: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT (EXTRACT(EPOCH FROM LEAST(s.idle_expires_at, s.expires_at) - clock_timestamp()) * 1000)::float8 AS ends_in_ms
         FROM browser_sessions s
         JOIN access_tokens t ON t.id = s.token_id AND t.revoked_at IS NULL
        WHERE s.id = $1 AND s.idle_expires_at > clock_timestamp() AND s.expires_at > clock_timestamp()
