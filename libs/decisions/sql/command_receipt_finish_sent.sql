-- command_receipt_finish_sent: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 owner_hash
--   $3 state
--   $4 status
--   $5 envelope
--   $6 now
--   $7 caller_key
UPDATE command_receipts
              SET state = $3, status = $4, envelope = $5, owner_token_hash = NULL, owner_expires_at = NULL, terminal_at = $6, updated_at = $6
            WHERE caller_key = $7 AND request_id = $1 AND state = 'send_started' AND owner_token_hash = $2 RETURNING request_id
