-- receipt_key_notify: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 kid
SELECT pg_notify('parley_receipt_keys', $1::text)
