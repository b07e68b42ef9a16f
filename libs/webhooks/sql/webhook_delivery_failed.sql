-- webhook_delivery_failed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
--   $3 status_code
--   $4 error
--   $5 retry_in_ms
--   $6 max_attempts
--   $7 disable_after
--   $8 attempts
--   $9 disabled_reason
WITH held AS (
         SELECT d.id, d.attempts, s.id AS subscription_id, s.status = 'active' AND s.consecutive_failures + 1 >= $7 AS disables
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE d.id = $1 AND d.state = 'sending' AND d.lease_owner = $2),
       failed AS (
         UPDATE webhook_deliveries d
            SET state = CASE WHEN held.attempts >= $6 THEN 'failed'
                             WHEN held.disables THEN 'skipped' ELSE 'pending' END,
                next_attempt_at = clock_timestamp() + make_interval(secs => $5::double precision / 1000),
                finished_at = CASE WHEN held.attempts >= $6 OR held.disables THEN clock_timestamp() END,
                lease_owner = NULL, lease_expires_at = NULL, last_status_code = $3, last_error = $4, history = d.history || $8::jsonb
           FROM held WHERE d.id = held.id AND d.state = 'sending' AND d.lease_owner = $2
         RETURNING d.state, held.subscription_id, held.disables),
       counted AS (
         UPDATE webhook_subscriptions s
            SET consecutive_failures = s.consecutive_failures + 1,
                status = CASE WHEN failed.disables THEN 'disabled' ELSE s.status END,
                disabled_reason = CASE WHEN failed.disables THEN $9 ELSE s.disabled_reason END,
                disabled_at = CASE WHEN failed.disables THEN clock_timestamp() ELSE s.disabled_at END,
                updated_at = clock_timestamp()
           FROM failed WHERE s.id = failed.subscription_id
         RETURNING s.id, s.status),
       skipped AS (
         UPDATE webhook_deliveries d SET state = 'skipped', last_error = 'subscription disabled', finished_at = clock_timestamp()
           FROM failed WHERE failed.disables AND d.subscription_id = failed.subscription_id AND d.id <> $1
            AND d.state = 'pending'
         RETURNING d.id)
       SELECT (SELECT state FROM failed) AS state, (SELECT status FROM counted) AS subscription_status, (SELECT COUNT(*) FROM skipped) AS skipped
