-- command_receipt_release: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 owner_hash
--   $3 now
--   $4 caller_key
UPDATE command_receipts SET owner_expires_at = $3, updated_at = $3
        WHERE caller_key = $4 AND request_id = $1 AND state = 'reserved' AND owner_token_hash = $2 RETURNING request_id
