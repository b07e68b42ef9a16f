-- command_receipt_claim: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 worker_id
--   $2 claim_hash
--   $3 caller_key
--   $4 request_id
--   $5 decision_ref
--   $6 now
--   $7 expires_at
INSERT INTO decision_claims AS c (worker_id, claim_token_hash, caller_key, request_id, decision_ref, state, claimed_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'claimed', $6, $7)
       ON CONFLICT (worker_id) DO UPDATE
         SET claim_token_hash = EXCLUDED.claim_token_hash, caller_key = EXCLUDED.caller_key, request_id = EXCLUDED.request_id,
             decision_ref = EXCLUDED.decision_ref, state = 'claimed', claimed_at = EXCLUDED.claimed_at, expires_at = EXCLUDED.expires_at,
             send_started_at = NULL
         WHERE c.state = 'claimed' AND (c.expires_at <= EXCLUDED.claimed_at OR (c.caller_key = EXCLUDED.caller_key AND c.request_id = EXCLUDED.request_id)
                                        OR c.decision_ref <> EXCLUDED.decision_ref)
       RETURNING worker_id
