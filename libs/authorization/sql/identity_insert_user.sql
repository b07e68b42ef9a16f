-- identity_insert_user: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 name
INSERT INTO users (id, name) VALUES ($1, $2) RETURNING id, name, created_at
