-- receipt_key_published: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
SELECT kid, public_jwk, private_jwk, created_at, retired_at, publish_until, (EXTRACT(EPOCH FROM publish_until - clock_timestamp()) * 1000)::float8 AS published_for_ms FROM receipt_keys
        WHERE retired_at IS NULL OR publish_until > clock_timestamp()
        ORDER BY created_at DESC, kid DESC
