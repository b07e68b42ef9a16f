-- task_insert: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
--   $2 workspace_id
--   $3 title
--   $4 state
INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, $2, $3, $4) RETURNING id, workspace_id, title, state, archived_at, created_at, updated_at
