-- chat_card_failed: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 owner
--   $3 error
--   $4 retry_in_ms
--   $5 max_attempts
UPDATE chat_cards SET lease_owner = NULL, lease_expires_at = NULL, last_error = $3,
              next_attempt_at = clock_timestamp() + make_interval(secs => $4::double precision / 1000),
              shown_version = CASE WHEN attempts >= $5 THEN wanted_version ELSE shown_version END
        WHERE id = $1 AND lease_owner = $2
