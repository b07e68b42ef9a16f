-- delivery_ownership_resume_url_of: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
SELECT resume_url FROM task_sessions WHERE id = $1
