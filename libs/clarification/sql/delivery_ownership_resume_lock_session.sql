-- delivery_ownership_resume_lock_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT pg_advisory_xact_lock(hashtextextended($1, 0))
