-- identity_revoke_token: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
WITH revoked AS (
         UPDATE access_tokens SET revoked_at = COALESCE(revoked_at, clock_timestamp()) WHERE id = $1
         RETURNING id, user_id, name, created_at, last_used_at, revoked_at
       ), ended AS (
         DELETE FROM browser_sessions WHERE token_id IN (SELECT id FROM revoked)
       ), told AS (
         SELECT pg_notify('parley_revoked', json_build_object('token_id', id)::text) AS sent FROM revoked
       )
       SELECT revoked.*, (SELECT COUNT(*) FROM told) AS told FROM revoked
