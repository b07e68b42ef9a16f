-- workspace_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 name
--   $3 owner_id
INSERT INTO workspaces (id, name, owner_id) VALUES ($1, $2, $3) RETURNING id, name, owner_id, created_at
