-- identity_list_users: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT id, name, created_at FROM users ORDER BY created_at, id
