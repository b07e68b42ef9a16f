-- command_receipt_expire_stale_send: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 request_id
--   $2 envelope
--   $3 now
--   $4 horizon_start
--   $5 caller_key
UPDATE command_receipts
              SET state = 'uncertain', status = 'request_state_uncertain', envelope = $2, owner_token_hash = NULL, owner_expires_at = NULL,
                  terminal_at = $3, updated_at = $3
            WHERE caller_key = $5 AND request_id = $1 AND state = 'send_started' AND (owner_expires_at <= $3 OR send_started_at < $4)
            RETURNING request_id
