-- command_receipt_renew: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 owner_hash
--   $3 expires_at
--   $4 now
--   $5 caller_key
UPDATE command_receipts SET owner_expires_at = $3, updated_at = $4
          WHERE caller_key = $5 AND request_id = $1 AND state = 'send_started' AND owner_token_hash = $2
