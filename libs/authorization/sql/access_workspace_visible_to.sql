-- access_workspace_visible_to: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 user_id
SELECT (w.owner_id IN ('', $2) OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = $2)) AS visible
         FROM workspaces w WHERE w.id = $1
