-- decision_claim_drop_stale_send: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 caller_key
--   $2 request_id
DELETE FROM decision_claims WHERE caller_key = $1 AND request_id = $2 AND state = 'send_started'
