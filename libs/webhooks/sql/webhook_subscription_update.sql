-- webhook_subscription_update: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
--   $3 url
--   $4 events
--   $5 format
--   $6 enabled
UPDATE webhook_subscriptions s
            SET url = COALESCE($3, s.url), event_types = COALESCE($4::text[], s.event_types), format = COALESCE($5, s.format),
                status = CASE $6::boolean WHEN true THEN 'active' WHEN false THEN 'disabled' ELSE s.status END,
                consecutive_failures = CASE WHEN $6::boolean THEN 0 ELSE s.consecutive_failures END,
                disabled_reason = CASE $6::boolean WHEN true THEN NULL
                                    WHEN false THEN COALESCE(CASE WHEN s.status = 'disabled' THEN s.disabled_reason END, 'disabled by its owner')
                                    ELSE s.disabled_reason END,
                disabled_at = CASE $6::boolean WHEN true THEN NULL
                                WHEN false THEN COALESCE(CASE WHEN s.status = 'disabled' THEN s.disabled_at END, clock_timestamp())
                                ELSE s.disabled_at END,
                updated_at = clock_timestamp()
           FROM workspaces w
          WHERE s.id = $1 AND w.id = s.workspace_id AND ($2::text IS NULL OR w.owner_id = $2::text)
          RETURNING s.id, s.workspace_id, s.url, s.event_types, s.format, s.status, s.consecutive_failures,
  s.disabled_reason, s.disabled_at, s.created_by, s.created_at, s.updated_at
