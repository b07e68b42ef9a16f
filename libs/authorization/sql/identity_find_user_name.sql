-- identity_find_user_name: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT name FROM users WHERE id = $1
