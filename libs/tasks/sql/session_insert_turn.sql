-- session_insert_turn: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 session_id
--   $3 task_id
--   $4 metadata
INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
       VALUES ($1, $2, $3, $4::jsonb) RETURNING id, task_session_id, task_id, started_at, completed_at, metadata, created_at
