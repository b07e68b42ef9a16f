-- delivery_ownership_abandon_notify: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 pending_id
SELECT pg_notify('parley_bundle', json_build_object('pending_id', $1::text, 'kind', 'reopened')::text)
