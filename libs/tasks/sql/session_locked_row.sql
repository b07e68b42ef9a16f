-- session_locked_row: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 id
SELECT s.id, s.task_id, s.state, s.resume_url, s.created_at, s.updated_at, t.archived_at IS NOT NULL AS task_archived
         FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = $1
