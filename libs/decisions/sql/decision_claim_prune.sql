-- decision_claim_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 now
DELETE FROM decision_claims WHERE state = 'claimed' AND expires_at <= $1 RETURNING worker_id
