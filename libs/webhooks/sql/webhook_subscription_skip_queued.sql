-- webhook_subscription_skip_queued: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 subscription_id
--   $2 reason
UPDATE webhook_deliveries SET state = 'skipped', last_error = $2, finished_at = clock_timestamp()
      WHERE subscription_id = $1 AND state = 'pending' RETURNING id
