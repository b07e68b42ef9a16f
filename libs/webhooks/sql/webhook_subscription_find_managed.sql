-- webhook_subscription_find_managed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
SELECT s.id, s.workspace_id, s.url, s.event_types, s.format, s.status, s.consecutive_failures,
  s.disabled_reason, s.disabled_at, s.created_by, s.created_at, s.updated_at FROM webhook_subscriptions s JOIN workspaces w ON w.id = s.workspace_id
        WHERE s.id = $1 AND ($2::text IS NULL OR w.owner_id = $2::text)
