-- command_receipt_mark_send_started: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 owner_hash
--   $3 pending_id
--   $4 now
--   $5 expires_at
--   $6 caller_key
UPDATE command_receipts SET state = 'send_started', pending_id = $3, send_started_at = $4, owner_expires_at = $5, updated_at = $4
              WHERE caller_key = $6 AND request_id = $1 AND state = 'reserved' AND owner_token_hash = $2 RETURNING request_id
