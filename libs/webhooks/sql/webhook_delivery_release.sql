-- webhook_delivery_release: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 ids
--   $2 owner
UPDATE webhook_deliveries SET state = 'pending', attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
              next_attempt_at = clock_timestamp()
        WHERE id = ANY($1::text[]) AND state = 'sending' AND lease_owner = $2
