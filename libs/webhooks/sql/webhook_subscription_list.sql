-- webhook_subscription_list: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 workspace_id
SELECT s.id, s.workspace_id, s.url, s.event_types, s.format, s.status, s.consecutive_failures,
  s.disabled_reason, s.disabled_at, s.created_by, s.created_at, s.updated_at FROM webhook_subscriptions s WHERE s.workspace_id = $1 ORDER BY s.created_at, s.id
