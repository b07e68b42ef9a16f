-- identity_insert_token: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 user_id
--   $3 name
--   $4 token_sha256
INSERT INTO access_tokens (id, user_id, name, token_sha256) VALUES ($1, $2, $3, $4)
       RETURNING id, user_id, name, created_at, last_used_at, revoked_at
