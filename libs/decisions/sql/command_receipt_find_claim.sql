-- command_receipt_find_claim: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
SELECT worker_id, caller_key, request_id, decision_ref, state, expires_at FROM decision_claims WHERE worker_id = $1
