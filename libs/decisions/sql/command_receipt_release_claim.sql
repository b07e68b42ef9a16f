-- command_receipt_release_claim: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
--   $2 claim_hash
DELETE FROM decision_claims WHERE worker_id = $1 AND claim_token_hash = $2 AND state = 'claimed' RETURNING worker_id
