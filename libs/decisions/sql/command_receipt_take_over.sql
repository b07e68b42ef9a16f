-- command_receipt_take_over: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 fingerprint
--   $3 previous_owner_hash
--   $4 owner_hash
--   $5 now
--   $6 expires_at
--   $7 caller_key
UPDATE command_receipts SET owner_token_hash = $4, owner_expires_at = $6, reserved_at = $5, updated_at = $5
        WHERE caller_key = $7 AND request_id = $1 AND state = 'reserved' AND canonical_fingerprint = $2 AND owner_token_hash = $3 AND owner_expires_at <= $5
        RETURNING request_id
