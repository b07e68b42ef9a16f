-- browser_session_delete: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_sha256
WITH ended AS (DELETE FROM browser_sessions WHERE session_sha256 = $1 RETURNING id)
       SELECT pg_notify('parley_revoked', json_build_object('browser_session_id', id)::text) FROM ended
