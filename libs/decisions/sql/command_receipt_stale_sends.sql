-- command_receipt_stale_sends: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 now
--   $2 horizon_start
--   $3 limit
SELECT caller_key, request_id FROM command_receipts
        WHERE state = 'send_started' AND (owner_expires_at <= $1 OR send_started_at < $2)
        ORDER BY owner_expires_at LIMIT $3
