-- access_accessible_task_ids: a named statement, written by `npm run sql:write` (a test fails when this file is stale).
-- Parameters:
--   $1 task_ids
--   $2 user_id
SELECT t.id FROM tasks t WHERE t.id = ANY($1::text[]) AND (t.id IS NOT NULL AND t.id <> '' AND (t.workspace_id = '' OR NOT EXISTS (SELECT 1 FROM workspaces visible_w WHERE visible_w.id = t.workspace_id) OR EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = t.workspace_id AND access_w.owner_id IN ('', $2))
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = t.workspace_id AND access_m.user_id = $2)))
