-- membership_workspace_exists: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
SELECT 1 FROM workspaces WHERE id = $1
