-- command_receipt_reserve: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 caller_key
--   $2 request_id
--   $3 fingerprint
--   $4 canonical_json
--   $5 worker_id
--   $6 owner_hash
--   $7 expires_at
--   $8 now
INSERT INTO command_receipts (caller_key, request_id, action, canonical_version, canonical_fingerprint, canonical_json, worker_id, state, status,
                                     owner_token_hash, owner_expires_at, created_at, reserved_at, updated_at)
       VALUES ($1, $2, 'answer_decision', 1, $3, $4, $5, 'reserved', 'pending', $6, $7, $8, $8, $8)
       ON CONFLICT (caller_key, request_id) DO NOTHING
       RETURNING request_id
