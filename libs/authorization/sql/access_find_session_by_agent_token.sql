-- access_find_session_by_agent_token: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 token_sha256
SELECT id, task_id, opened_by FROM task_sessions WHERE agent_token_sha256 = $1 AND state NOT IN ('COMPLETED', 'FAILED', 'CANCELLED')
