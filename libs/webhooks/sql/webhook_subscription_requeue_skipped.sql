-- webhook_subscription_requeue_skipped: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 subscription_id
UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = clock_timestamp(), finished_at = NULL
      WHERE subscription_id = $1 AND state = 'skipped' RETURNING pg_notify('parley_webhooks', '')
