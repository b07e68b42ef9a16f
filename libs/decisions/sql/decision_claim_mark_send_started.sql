-- decision_claim_mark_send_started: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
--   $2 claim_hash
--   $3 now
--   $4 expires_at
UPDATE decision_claims SET state = 'send_started', send_started_at = $3, expires_at = $4
            WHERE worker_id = $1 AND claim_token_hash = $2 AND state = 'claimed' RETURNING worker_id
