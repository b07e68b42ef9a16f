-- decision_claim_renew: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
--   $2 claim_hash
--   $3 expires_at
UPDATE decision_claims SET expires_at = $3 WHERE worker_id = $1 AND claim_token_hash = $2
