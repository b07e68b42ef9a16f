-- webhook_subscription_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 workspace_id
--   $3 url
--   $4 secret
--   $5 events
--   $6 format
--   $7 created_by
--   $8 owner
--   $9 max_subscriptions
WITH workspace AS (SELECT w.id FROM workspaces w WHERE w.id = $2 AND ($8::text IS NULL OR w.owner_id = $8::text)),
            counted AS (SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE workspace_id = $2),
            inserted AS (
              INSERT INTO webhook_subscriptions (id, workspace_id, url, secret, event_types, format, created_by)
              SELECT $1, workspace.id, $3, $4, $5::text[], $6, $7 FROM workspace, counted WHERE counted.n < $9
              RETURNING *)
       SELECT EXISTS (SELECT 1 FROM workspace) AS managed, s.id, s.workspace_id, s.url, s.event_types, s.format, s.status, s.consecutive_failures,
  s.disabled_reason, s.disabled_at, s.created_by, s.created_at, s.updated_at
         FROM (SELECT 1) one LEFT JOIN inserted s ON true
