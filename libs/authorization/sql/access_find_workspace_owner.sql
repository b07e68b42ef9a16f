-- access_find_workspace_owner: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
SELECT owner_id FROM workspaces WHERE id = $1
