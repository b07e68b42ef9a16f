-- receipt_key_add_first: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 kid
--   $2 public_jwk
--   $3 private_jwk
INSERT INTO receipt_keys (kid, public_jwk, private_jwk) VALUES ($1, $2::jsonb, $3::jsonb)
       ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING
