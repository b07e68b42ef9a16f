-- receipt_key_retire: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 publish_seconds
UPDATE receipt_keys SET retired_at = clock_timestamp(), publish_until = clock_timestamp() + make_interval(secs => $1)
          WHERE retired_at IS NULL RETURNING kid
