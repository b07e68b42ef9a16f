-- membership_names_of: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 user_ids
SELECT id, name FROM users WHERE id = ANY($1::text[])
