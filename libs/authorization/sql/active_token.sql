-- active_token: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 token_sha256
WITH token AS (
     SELECT id, user_id FROM access_tokens WHERE token_sha256 = $1 AND revoked_at IS NULL
   ), touched AS (
     UPDATE access_tokens SET last_used_at = clock_timestamp()
     WHERE id IN (SELECT id FROM token)
       AND (last_used_at IS NULL OR last_used_at < clock_timestamp() - interval '1 minute')
   )
   SELECT id AS token_id, user_id FROM token
