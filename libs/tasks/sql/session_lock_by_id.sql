-- session_lock_by_id: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT pg_advisory_xact_lock(hashtextextended($1, 0))
