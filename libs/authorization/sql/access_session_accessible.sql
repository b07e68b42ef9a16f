-- access_session_accessible: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 session_id
--   $2 user_id
SELECT (t.id IS NOT NULL AND t.id <> '' AND (t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = t.workspace_id AND access_w.owner_id IN ('', $2))
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = t.workspace_id AND access_m.user_id = $2))) AS allowed FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = $1
