-- command_receipt_prune: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 now
--   $2 horizon_start
DELETE FROM command_receipts
        WHERE terminal_at < $2 OR (state = 'reserved' AND owner_expires_at <= $1 AND reserved_at < $2)
        RETURNING request_id
