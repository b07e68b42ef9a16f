-- identity_list_tokens: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 user_id
SELECT id, user_id, name, created_at, last_used_at, revoked_at FROM access_tokens
       WHERE $1::text IS NULL OR user_id = $1 ORDER BY created_at, id
