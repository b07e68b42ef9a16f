-- receipt_key_rotation_lock: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT pg_advisory_xact_lock(hashtextextended('parley.receipt_keys', 0))
