-- webhook_delivery_succeeded: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
--   $3 status_code
--   $4 attempts
WITH done AS (
         UPDATE webhook_deliveries SET state = 'delivered', lease_owner = NULL, lease_expires_at = NULL,
                last_status_code = $3, last_error = NULL, finished_at = clock_timestamp(), history = history || $4::jsonb
          WHERE id = $1 AND state = 'sending' AND lease_owner = $2
          RETURNING subscription_id),
       reset AS (
         UPDATE webhook_subscriptions s SET consecutive_failures = 0
           FROM done WHERE s.id = done.subscription_id AND s.consecutive_failures <> 0 RETURNING s.id)
       SELECT (SELECT COUNT(*) FROM done)::text AS done, (SELECT COUNT(*) FROM reset) AS reset
