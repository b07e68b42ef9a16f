-- webhook_delivery_list: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 subscription_id
--   $2 at
--   $3 id
--   $4 limit
SELECT id, subscription_id, workspace_id, event_id::text AS event_id, event_type, pending_id, state, attempts, next_attempt_at,
              last_status_code, last_error, history, created_at, finished_at, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position
         FROM webhook_deliveries
        WHERE subscription_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
        ORDER BY created_at DESC, id DESC LIMIT $4
