-- receipt_record_redeem: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 jti
--   $2 pending_id
--   $3 redeemed_by
INSERT INTO receipt_redemptions (jti, pending_id, redeemed_by) VALUES ($1, $2, $3)
       ON CONFLICT (jti) DO NOTHING RETURNING jti
