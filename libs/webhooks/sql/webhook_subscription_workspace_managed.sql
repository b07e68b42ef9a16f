-- webhook_subscription_workspace_managed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
--   $2 owner
SELECT w.id FROM workspaces w WHERE w.id = $1 AND ($2::text IS NULL OR w.owner_id = $2::text)
