-- webhook_subscription_delete: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
DELETE FROM webhook_subscriptions s USING workspaces w WHERE s.id = $1 AND w.id = s.workspace_id AND ($2::text IS NULL OR w.owner_id = $2::text) RETURNING s.id
