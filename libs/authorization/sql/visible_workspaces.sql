-- visible_workspaces: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 user_id
SELECT id FROM workspaces WHERE owner_id IN ('', $1)
   UNION SELECT workspace_id FROM workspace_members WHERE user_id = $1
   ORDER BY id
