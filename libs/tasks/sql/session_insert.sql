-- session_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 task_id
--   $3 state
--   $4 agent_token_sha256
--   $5 resume_url
--   $6 opened_by
INSERT INTO task_sessions (id, task_id, state, agent_token_sha256, resume_url, opened_by)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, task_id, state, resume_url, created_at, updated_at
