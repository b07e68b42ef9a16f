-- identity_user_exists: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT 1 FROM users WHERE id = $1
