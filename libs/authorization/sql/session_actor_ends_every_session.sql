-- session_actor_ends_every_session: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 task_id
--   $2 user_id
--   $3 user_key
SELECT (COALESCE(w.owner_id = $2, false)
               OR NOT EXISTS (SELECT 1 FROM task_sessions s WHERE s.task_id = t.id AND s.opened_by <> $3)) AS allowed
         FROM tasks t LEFT JOIN workspaces w ON w.id = t.workspace_id WHERE t.id = $1
