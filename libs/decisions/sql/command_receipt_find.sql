-- command_receipt_find: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 caller_key
--   $2 request_id
SELECT caller_key, request_id, canonical_fingerprint, worker_id, state, status, envelope, owner_token_hash, owner_expires_at, pending_id FROM command_receipts WHERE caller_key = $1 AND request_id = $2
